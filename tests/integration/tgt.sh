# tests/integration/tgt.sh - start a tgtd of this test's own. Source after lib.sh:
#   tgt_start [iscsi-target.sh start options...]   -> URLs in $TGT_URLS (array), $TGT_DIR
# The target is stopped at exit.
tgt_start() {
        TGT_DIR=$T/tgt
        TGT_PORTAL="$(test_addr 0):$(test_port 0)"
        mapfile -t TGT_URLS < <(bash "$SRC/scripts/iscsi-target.sh" start --dir "$TGT_DIR" \
                --portal "$TGT_PORTAL" "$@") || fail "could not start tgtd"
        [ ${#TGT_URLS[@]} -ge 1 ] || fail "tgtd started but printed no URL"
        on_exit "bash '$SRC/scripts/iscsi-target.sh' stop --dir '$TGT_DIR'"
}
