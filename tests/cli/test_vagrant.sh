# test_vagrant.sh - the repository's Vagrantfile parses and validates for
# both topologies and both databases (`vagrant validate --ignore-provider`,
# no VM is created), bad settings are refused, and the inventory it writes
# after `up` is one the static backend accepts (its writer is run directly).
. "$TESTLIB"

command -v vagrant >/dev/null || fail "vagrant is not installed (Debian package vagrant)"
export VAGRANT_HOME=$T/vagrant.d VAGRANT_DOTFILE_PATH=$T/dot VAGRANT_CHECKPOINT_DISABLE=1
cp "$SRC/Vagrantfile" "$T/"
cd "$T" || fail "cd $T"

for topo in hci two-layer; do
        for db in mariadb percona; do
                expect_rc 0 env HCISWEEP_TOPOLOGY=$topo HCISWEEP_DB=$db HCISWEEP_VMS=3 \
                        vagrant validate --ignore-provider
        done
done
pass "validates: hci and two-layer, mariadb and percona"

expect_rc 1 env HCISWEEP_TOPOLOGY=ring vagrant validate --ignore-provider
grep -q "HCISWEEP_TOPOLOGY" <<<"$OUT" || fail "bad topology not named: $OUT"
expect_rc 1 env HCISWEEP_VMS=0 vagrant validate --ignore-provider
grep -q "HCISWEEP_VMS" <<<"$OUT" || fail "bad VM count not named: $OUT"
pass "bad settings refused"

# The inventory the after-up trigger writes, read by the static backend:
# every VM listed (on loopback here, where nothing listens: lab status
# reaches none of them, exit 3 - a bad inventory would be exit 2).
mkdir -p .vagrant && echo pw >.vagrant/hcisweep-password
expect_rc 0 env HCISWEEP_VMS=3 HCISWEEP_NET=127.0.77 ruby -e '
        module Vagrant; def self.configure(*); end; end
        load "Vagrantfile"; write_inventory'
[ "$(grep -c '^\[db[0-9]\]$' hcisweep-inventory.ini)" = 3 ] || fail "inventory: $(cat hcisweep-inventory.ini)"
grep -q "^host = 127.0.77.103$" hcisweep-inventory.ini || fail "db3 host: $(cat hcisweep-inventory.ini)"
expect_rc 3 "$HCISWEEP" lab status --backend static --inventory hcisweep-inventory.ini
pass "inventory of 3 VMs accepted by the static backend"
