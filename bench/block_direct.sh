# shellcheck shell=bash disable=SC2153
# bench/block_direct.sh - the direct-I/O suite of bench/block_vs_peers: the
# seeds' own shapes with O_DIRECT on a file on the real disk (and on a block
# device given with --device), hcisweep's io_uring engine against fio's, in
# alternated pairs. Sourced by block_vs_peers after lib.sh; it reads
# HCISWEEP, BENCH_DIR, DIRECT_* and writes rows to $DROWS:
#   target shape rw bs qd jobs rep tool ios iops bw_bytes mean_ns p99_ns cpu_s load
# shape names the access pattern (4k-randrw70, 1m-write, ...); target is
# "file", "device", "filesN" (N files in one run: hcisweep's aggregate row,
# a thread per file, against one fio run with a job per file, fio's default
# processes) or "lunsN" (N tgtd LUNs in one run against N iscsi-perf
# processes at once, their IOPS and CPU summed: this fio has no libiscsi
# engine, and iscsi-perf reads only, so the LUN points are random reads).
# The side measured against the peer is hcisweep, or with --direct-aa
# (DIRECT_AA=1) the peer itself ("fio-again", "iscsi-perf-again"), which gives
# the bench's noise floor: what the minimum and the median look like when both
# sides are the same program.

# The shapes: NAME RW BS. 70:30 is randrw at --rwmixread 70 for both tools.
direct_shapes() {
        if [ "$QUICK" -eq 1 ]; then
                printf '%s\n' "4k-randread randread 4k" "1m-write write 1m"
        else
                printf '%s\n' "4k-randread randread 4k" "4k-randwrite randwrite 4k" \
                        "4k-randrw70 randrw 4k" "8k-randread randread 8k" \
                        "8k-randwrite randwrite 8k" "8k-randrw70 randrw 8k" \
                        "256k-read read 256k" "256k-write write 256k" "1m-read read 1m" \
                        "1m-write write 1m"
        fi
}

# --direct-shapes: names of direct_shapes, and "multi" for the several-target
# points; empty runs them all. A long run of one weak family needs no more.
direct_check_shapes() {
        local known s picked
        known="$(direct_shapes | cut -d' ' -f1 | tr '\n' ' ')multi"
        IFS=, read -r -a picked <<<"$DIRECT_SHAPES"
        for s in "${picked[@]}"; do
                [[ " $known " == *" $s "* ]] || bench_die "--direct-shapes: no shape '$s' (shapes: $known)"
        done
}

direct_picked() { # NAME: true when --direct-shapes runs it
        [[ -z $DIRECT_SHAPES || ,$DIRECT_SHAPES, == *",$1,"* ]]
}

# A block device is used only when it holds no partition table, filesystem,
# LVM or RAID signature and is not mounted: the suite writes over all of it.
direct_check_device() { # DEV
        local dev=$1 sig
        [ -b "$dev" ] || bench_die "--device $dev is not a block device"
        if grep -q "^$(readlink -f "$dev") " /proc/mounts; then
                bench_die "--device $dev is mounted: refusing to write over it"
        fi
        sig=$(blkid -p -o export "$dev" 2>/dev/null | grep -E '^(TYPE|PTTYPE)=' | tr '\n' ' ')
        [ -z "$sig" ] || bench_die "--device $dev holds a signature ($sig): refusing to write over it"
        command -v wipefs >/dev/null && [ -n "$(wipefs -n "$dev" 2>/dev/null | tail -n +2)" ] &&
                bench_die "--device $dev holds a signature (wipefs -n lists one): refusing to write over it"
        return 0
}

# The file lives on the disk under the checkout, never on a tmpfs /tmp.
direct_prepare() {
        local fs i f size base=${DIRECT_DIR_BASE:-$BENCH_ROOT/runs}
        mkdir -p "$base" || bench_die "cannot make $base"
        DIRECT_DIR=$(mktemp -d "$base/bench-direct.XXXXXX") ||
                bench_die "cannot make a directory for the direct-I/O file"
        bench_on_exit "rm -rf '$DIRECT_DIR'"
        fs=$(stat -f -c %T "$DIRECT_DIR")
        case $fs in tmpfs | ramfs) bench_die "$DIRECT_DIR is on $fs: direct I/O needs a real disk" ;; esac
        DIRECT_FILE=$DIRECT_DIR/direct.img
        DIRECT_MULTI=()
        if direct_picked multi; then
                for ((i = 0; i < DIRECT_NFILES; i++)); do DIRECT_MULTI+=("$DIRECT_DIR/multi$i.img"); done
        fi
        # Written once in full, so reads hit allocated blocks and writes overwrite them.
        for f in "$DIRECT_FILE" "${DIRECT_MULTI[@]}"; do
                size=$DIRECT_SIZE
                [ "$f" = "$DIRECT_FILE" ] || size=$DIRECT_MULTI_SIZE
                fio --name=fill --filename="$f" --size="$size" --rw=write --bs=1m --direct=1 \
                        --ioengine=io_uring --iodepth=8 --output=/dev/null ||
                        bench_die "could not write $f"
        done
        DIRECT_DISK=$(df --output=source "$DIRECT_DIR" | tail -n 1)
}

# A file left alone for a while reads cold: the disk under this VM caches on
# the host, and a file untouched for 40 minutes gave 8k random-read IOPS that
# grew to 60k over the ten runs of one point, so a pair's order decided its
# ratio. Each target is read through once before its points.
direct_warm() { # FILE...
        local f
        for f in "$@"; do
                fio --name=warm --filename="$f" --rw=read --bs=1m --direct=1 --ioengine=io_uring \
                        --iodepth=8 --output=/dev/null || bench_die "could not read $f"
        done
}

# fio's options and hcisweep's for one point. Sequential jobs get a slice each
# (hcisweep splits the region between the jobs of a sequential point).
# randrepeat=0: fio's default replays the same offsets in every run, which
# then find their blocks cached by the run before; hcisweep draws new ones.
direct_fio_opts() { # RW BS QD JOBS SIZE
        local o=(--direct=1 --ioengine=io_uring --rw="$1" --bs="$2" --iodepth="$3" --randrepeat=0
                --numjobs="$4" --runtime="$DIRECT_RUNTIME" --time_based --group_reporting
                --lat_percentiles=1 --output-format=json)
        [ "$1" = randrw ] && o+=(--rwmixread=70)
        if [ "$4" -gt 1 ] && { [ "$1" = read ] || [ "$1" = write ]; }; then
                local slice=$(($5 / $4 / 1048576 * 1048576))
                o+=(--size="$slice" --offset_increment="$slice")
        else
                o+=(--size="$5")
        fi
        printf '%s\n' "${o[@]}"
}

direct_size_bytes() { # SIZE like 1G / 512M -> bytes
        numfmt --from=iec "${1^^}" 2>/dev/null || echo "$1"
}

# One run of each tool: prints "ios iops bw_bytes mean_ns p99_ns cpu_s".
# Mixed points: IOPS and bytes add up, the mean is weighted by I/Os and p99
# is the larger of the two directions' (for both tools alike).
direct_run_fio() { # TARGET RW BS QD JOBS
        local out=$BENCH_DIR/df.out cpu=$BENCH_DIR/df.cpu j=$BENCH_DIR/df.json size files=() opts f
        size=$(direct_size_bytes "$DIRECT_SIZE")
        mapfile -t opts < <(direct_fio_opts "$2" "$3" "$4" "$5" "$size")
        case $1 in
        file) files=(--name=peer --filename="$DIRECT_FILE") ;;
        device) files=(--name=peer --filename="$DIRECT_DEVICE")
                size=$(blockdev --getsize64 "$DIRECT_DEVICE")
                mapfile -t opts < <(direct_fio_opts "$2" "$3" "$4" "$5" "$size") ;;
        files*) for f in "${DIRECT_MULTI[@]:0:${1#files}}"; do
                        files+=(--name="$(basename "$f" .img)" --filename="$f")
                done
                size=$(direct_size_bytes "$DIRECT_MULTI_SIZE")
                mapfile -t opts < <(direct_fio_opts "$2" "$3" "$4" "$5" "$size") ;;
        *) bench_die "fio has no run for target $1" ;;
        esac
        bench_cpu_run "$out" "$cpu" fio "${opts[@]}" --output="$j" "${files[@]}" ||
                { tail -5 "$out" >&2; bench_die "fio direct $*: failed"; }
        jq -r '.jobs[0] as $j | [$j.read, $j.write] as $d |
                ($d | map(.total_ios) | add) as $n |
                [$n, ($d | map(.iops) | add), ($d | map(.bw_bytes) | add),
                 (if $n > 0 then ($d | map(.lat_ns.mean * .total_ios) | add) / $n else 0 end),
                 ($d | map(select(.total_ios > 0) | .lat_ns.percentile["99.000000"] // 0) | max // 0)]
                | map(tostring) | join(" ")' "$j" | tr '\n' ' '
        bench_cpu_seconds "$cpu"
}

direct_run_hcisweep() { # TARGET RW BS QD JOBS
        local out=$BENCH_DIR/dh.out cpu=$BENCH_DIR/dh.cpu j=$BENCH_DIR/dh.json tgt
        case $1 in
        file) tgt=(--filename "$DIRECT_FILE" --size "$DIRECT_SIZE") ;;
        device) tgt=(--filename "$DIRECT_DEVICE") ;;
        files*) tgt=(--filename "$(IFS=,; echo "${DIRECT_MULTI[*]:0:${1#files}}")" --size "$DIRECT_MULTI_SIZE") ;;
        luns*) tgt=(--target "$(IFS=,; echo "${DIRECT_LUNS[*]:0:${1#luns}}")") ;;
        esac
        [[ $1 == luns* ]] || tgt+=(--engine io_uring --direct)
        bench_cpu_run "$out" "$cpu" "$HCISWEEP" block "${tgt[@]}" \
                --rw "$2" --rwmixread 70 --bs "$3" --iodepth "$4" --numjobs "$5" \
                --runtime "$DIRECT_RUNTIME" --percentile 50,99 --monitor-interval 60 \
                --json "$j" --quiet ||
                { tail -5 "$out" >&2; bench_die "hcisweep direct $*: failed"; }
        jq -r '.points[0] as $p | [$p.read, $p.write] as $d |
                ($d | map(.ios) | add) as $n |
                [$n, ($d | map(.iops) | add), ($d | map(.bw_bytes) | add),
                 (if $n > 0 then ($d | map(.lat_ns.mean * .ios) | add) / $n else 0 end),
                 ($d | map(select(.ios > 0) | .lat_ns.percentile["99.0"] // 0) | max // 0)]
                | map(tostring) | join(" ")' "$j" | tr '\n' ' '
        bench_cpu_seconds "$cpu"
}

direct_run_fio-again() { direct_run_fio "$@"; }

# N iscsi-perf processes at once, one per LUN, each at the point's depth; one
# `times` covers them all. Their IOPS add up; iscsi-perf gives no latency
# ("nan"). Random reads only (iscsi-perf has no write mode).
direct_run_iscsi-perf() { # TARGET RW BS QD JOBS
        local out=$BENCH_DIR/dp.out cpu=$BENCH_DIR/dp.cpu n=${1#luns} iops
        if [ "$2" != randread ] || [ "$3" != 4k ] || [ "$5" != 1 ]; then
                bench_die "iscsi-perf runs 4k random reads with one job per LUN, not $2 $3 x $5"
        fi
        # shellcheck disable=SC2016 # the inner script expands its own arguments
        bench_cpu_run "$out" "$cpu" bash -c 'out=$1 qd=$2 t=$3; shift 3; pids=() rc=0
                for u; do iscsi-perf -m "$qd" -r -t "$t" "$u" >"$out.${#pids[@]}" 2>&1 & pids+=($!); done
                for p in "${pids[@]}"; do wait "$p" || rc=$?; done; exit $rc' \
                perf "$out" "$4" "$DIRECT_RUNTIME" "${DIRECT_LUNS[@]:0:$n}" ||
                { tail -c 400 "$out".* >&2; bench_die "iscsi-perf direct $*: failed"; }
        # Progress lines end in \r; each process's last "iops average N" is its whole run's.
        iops=$(for ((i = 0; i < n; i++)); do
                tr '\r' '\n' <"$out.$i" | sed -n 's/.*iops average \([0-9]*\).*/\1/p' | tail -n 1
        done | awk '{ s += $1; k++ } END { printf "%d", (k ? s : -1) }')
        [ "$iops" -ge 0 ] || bench_die "iscsi-perf direct $*: no 'iops average' line"
        awk -v i="$iops" -v t="$DIRECT_RUNTIME" -v bs=4096 \
                'BEGIN { printf "%d %d %d nan nan ", i * t, i, i * bs }'
        bench_cpu_seconds "$cpu"
}

direct_run_iscsi-perf-again() { direct_run_iscsi-perf "$@"; }

# The peer of a target, and the side measured against it.
direct_peer() { # TARGET
        case $1 in luns*) echo iscsi-perf ;; *) echo fio ;; esac
}
direct_side_a() { # TARGET
        if [ "$DIRECT_AA" -eq 1 ]; then echo "$(direct_peer "$1")-again"; else echo hcisweep; fi
}

direct_a_name() {
        if [ "$DIRECT_AA" -eq 1 ]; then echo "the peer again"; else echo hcisweep; fi
}

# Pairs alternate: odd repeats run the measured side first, even ones the peer first.
direct_point() { # TARGET SHAPE RW BS QD JOBS
        local rep t tools r a peer
        a=$(direct_side_a "$1") peer=$(direct_peer "$1")
        for ((rep = 1; rep <= DIRECT_PAIRS; rep++)); do
                if ((rep % 2)); then tools=("$a" "$peer"); else tools=("$peer" "$a"); fi
                for t in "${tools[@]}"; do
                        bench_log "direct $1 $2 qd=$5 jobs=$6 rep=$rep $t"
                        r=$("direct_run_$t" "$1" "$3" "$4" "$5" "$6") ||
                                bench_die "direct $t $1 $2 qd $5 failed"
                        echo "$1 $2 $3 $4 $5 $6 $rep $t $r $(cut -d' ' -f1 /proc/loadavg)" >>"$DROWS"
                done
        done
}

direct_suite() {
        local tgt name rw bs qd jobs n
        local targets=(file)
        [ -z "${DIRECT_DEVICE:-}" ] || targets+=(device)
        for tgt in "${targets[@]}"; do
                while read -r name rw bs; do
                        direct_picked "$name" || continue
                        [ "$tgt" != file ] || direct_warm "$DIRECT_FILE"
                        for qd in "${DIRECT_QD_LIST[@]}"; do
                                for jobs in "${DIRECT_JOBS_LIST[@]}"; do
                                        direct_point "$tgt" "$name" "$rw" "$bs" "$qd" "$jobs"
                                done
                        done
                done < <(direct_shapes)
        done
        # Several targets at once, as the seeds ran them: one job per file or LUN.
        direct_picked multi || return 0
        direct_warm "${DIRECT_MULTI[@]}"
        for n in "${DIRECT_MULTI_COUNTS[@]}"; do
                for qd in "${DIRECT_MULTI_QD_LIST[@]}"; do
                        direct_point "files$n" "4k-randread" randread 4k "$qd" 1
                        direct_point "files$n" "4k-randrw70" randrw 4k "$qd" 1
                done
        done
        [ "${#DIRECT_LUNS[@]}" -eq 0 ] && return 0
        for qd in "${DIRECT_MULTI_QD_LIST[@]}"; do
                direct_point "luns${#DIRECT_LUNS[@]}" "4k-randread" randread 4k "$qd" 1
        done
}

# Medians per point and tool:
#   target shape qd jobs tool iops mbps mean_us p99_us cpu_us_per_io
direct_medians() {
        local key
        awk '{ print $1, $2, $5, $6, $8 }' "$DROWS" | sort -u | while read -r -a key; do
                awk -v t="${key[0]}" -v s="${key[1]}" -v q="${key[2]}" -v j="${key[3]}" -v c="${key[4]}" \
                        '$1 == t && $2 == s && $5 == q && $6 == j && $8 == c' "$DROWS" >"$BENCH_DIR/dsel"
                echo "${key[*]}" \
                        "$(awk '{ print $10 }' "$BENCH_DIR/dsel" | bench_median)" \
                        "$(awk '{ print $11 / 1e6 }' "$BENCH_DIR/dsel" | bench_median)" \
                        "$(awk '$12 ~ /^[0-9]/ { print $12 / 1e3 }' "$BENCH_DIR/dsel" | bench_median)" \
                        "$(awk '$13 ~ /^[0-9]/ { print $13 / 1e3 }' "$BENCH_DIR/dsel" | bench_median)" \
                        "$(awk '$9 > 0 { print $14 / $9 * 1e6 }' "$BENCH_DIR/dsel" | bench_median)"
        done | sort -k1,1 -k2,2 -k4,4n -k3,3n -k5,5
}

# Per point: target shape qd jobs iops_ratio cpu_per_io_ratio lo hi pairs
# ci_lo ci_hi ci_cover (measured side / peer): the median over the pairs of each
# pair's ratio, so a change of load between pairs falls on both tools of a
# pair alike; lo and hi are the lowest and highest pair's IOPS ratio, the
# spread of the noise; ci_lo..ci_hi is the median's distribution-free
# confidence interval (order statistics k and n+1-k, the widest k whose
# binomial cover is still >= 95%; with fewer than 6 pairs only lo..hi, whose
# cover ci_cover is then below 95%).
direct_ratios() {
        awk '{ k = $1 " " $2 " " $5 " " $6; p = k " " $7
               if ($8 == "hcisweep" || $8 ~ /-again$/) { hi[p] = $10; hc[p] = ($9 > 0 ? $14 / $9 : 0) }
               else { fi_[p] = $10; fc[p] = ($9 > 0 ? $14 / $9 : 0) }
               pts[p] = k }
             END { for (p in pts) if ((p in hi) && (p in fi_) && fi_[p] > 0 && fc[p] > 0)
                     print pts[p], hi[p] / fi_[p], hc[p] / fc[p] }' "$DROWS" |
                sort -k1,1 -k2,2 -k4,4n -k3,3n >"$BENCH_DIR/dpairs"
        awk '{ print $1, $2, $3, $4 }' "$BENCH_DIR/dpairs" | uniq | while read -r t s q j; do
                awk -v t="$t" -v s="$s" -v q="$q" -v j="$j" '$1 == t && $2 == s && $3 == q && $4 == j' \
                        "$BENCH_DIR/dpairs" >"$BENCH_DIR/dsel2"
                printf '%s %s %s %s %.3f %.3f %s\n' "$t" "$s" "$q" "$j" \
                        "$(awk '{ print $5 }' "$BENCH_DIR/dsel2" | bench_median)" \
                        "$(awk '{ print $6 }' "$BENCH_DIR/dsel2" | bench_median)" \
                        "$(awk '{ print $5 }' "$BENCH_DIR/dsel2" | sort -g | direct_median_ci)"
        done
}

# Sorted ratios in, "lo hi n ci_lo ci_hi cover" out: P(X(k) <= median <=
# X(n+1-k)) = 1 - 2 P(Binomial(n, 1/2) <= k-1), for the largest k that keeps
# it >= 0.95 (k = 1 when none does).
direct_median_ci() {
        awk '{ v[NR] = $1 }
             END { n = NR; p = 0.5 ^ n; cdf = p; k = 1; cover = 1 - 2 * cdf
                   for (j = 1; j < n / 2; j++) { # cdf = P(B <= j), the cover of k = j + 1
                           p = p * (n - j + 1) / j; cdf += p
                           if (1 - 2 * cdf < 0.95) break
                           k = j + 1; cover = 1 - 2 * cdf }
                   printf "%.3f %.3f %d %.3f %.3f %.3f", v[1], v[n], n, v[k], v[n + 1 - k], cover }'
}

# The minimum that equal tools would give these very pairs: if both sides
# were the same program, each pair's ratio r would as likely have come out
# 1/r. So each of DRAWS draws inverts every pair's ratio with probability
# 1/2, takes each point's median and their minimum; out: the median of those
# minimums and their 5th percentile (a fixed seed: the same rows give the
# same line). Reads the pairs file (target shape qd jobs ratio cpu_ratio).
direct_null_min() { # PAIRS DRAWS
        awk -v draws="$2" '{ k = $1 " " $2 " " $3 " " $4
               if (!(k in idx)) { idx[k] = ++np; n[np] = 0 }
               i = idx[k]; r[i, ++n[i]] = $5 }
             END { if (np == 0) { print "nan nan"; exit }
                   srand(1)
                   for (d = 1; d <= draws; d++) {
                           lo = -1
                           for (i = 1; i <= np; i++) {
                                   m = n[i]
                                   for (j = 1; j <= m; j++) {
                                           v = (rand() < 0.5) ? r[i, j] : 1 / r[i, j]
                                           for (h = j - 1; h >= 1 && w[h] > v; h--) w[h + 1] = w[h]
                                           w[h + 1] = v }
                                   med = (m % 2) ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2
                                   if (lo < 0 || med < lo) lo = med }
                           mins[d] = lo }
                   for (j = 2; j <= draws; j++) {          # insertion sort of the minimums
                           v = mins[j]
                           for (h = j - 1; h >= 1 && mins[h] > v; h--) mins[h + 1] = mins[h]
                           mins[h + 1] = v }
                   printf "%.3f %.3f\n", mins[int((draws + 1) / 2)], mins[int(draws / 20) + 1] }' "$1"
}

direct_print() {
        echo "## direct-I/O suite (O_DIRECT, io_uring; file on $DIRECT_DISK${DIRECT_DEVICE:+, device $DIRECT_DEVICE})"
        echo
        echo "| target | shape | qd | jobs | client | IOPS | MB/s | mean µs | p99 µs | CPU µs per I/O |"
        echo "|---|---|---:|---:|---|---:|---:|---:|---:|---:|"
        awk 'function us(v) { return v == "nan" ? "–" : sprintf("%.1f", v) }
             { printf "| %s | %s | %s | %s | %s | %.0f | %.1f | %s | %s | %.2f |\n",
                $1, $2, $3, $4, $5, $6, $7, us($8), us($9), $10 }' "$BENCH_DIR/dmedians"
        echo
        echo "$(direct_a_name) ÷ the peer (fio; iscsi-perf on LUNs) per point: the median over the"
        echo "pairs of each pair's ratio; its confidence interval (cover in brackets: 95% or more"
        echo "from 6 pairs on) and the lowest and highest pair, the spread of the noise"
        echo
        echo "| target | shape | qd | jobs | IOPS ratio | median's interval | pairs low..high | CPU/IO ratio |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|"
        awk '{ printf "| %s | %s | %s | %s | %s | %s..%s [%.0f%%] | %s..%s (%d) | %s |\n",
                $1, $2, $3, $4, $5, $10, $11, 100 * $12, $7, $8, $9, $6 }' "$BENCH_DIR/dratios"
        echo
        echo "<details><summary>every run (target shape rw bs qd jobs pair tool ios iops bytes/s mean_ns p99_ns cpu_s load)</summary>"
        echo
        echo '```'
        cat "$DROWS"
        echo '```'
        echo "</details>"
        echo
        echo "# direct suite: load average over the runs $(awk '{ print $NF }' "$DROWS" | sort -g |
                awk '{ v[NR] = $1 } END { printf "%s..%s (median %s)", v[1], v[NR], v[int((NR + 1) / 2)] }')"
}

# The summary, then how many points fell short of 0.97 and, of those, how
# many had a pair where the measured side was ahead (a shortfall the noise
# can make) and how many lie below 0.97 with their whole interval (one it
# hardly can), and the minimum that equal tools would give the same pairs.
# --direct-aa names its line summary_direct_aa.
direct_summary() {
        local name=summary_direct null_med null_p5
        [ "$DIRECT_AA" -eq 0 ] || name=summary_direct_aa
        awk '{ print $5, $6 }' "$BENCH_DIR/dratios" >"$BENCH_DIR/dr"
        [ -z "$DIRECT_SHAPES" ] || echo "# direct shapes: only $DIRECT_SHAPES (--direct-shapes), not the whole suite"
        [ "$DIRECT_AA" -eq 0 ] ||
                echo "# --direct-aa: each peer against itself, the noise floor of these points; no hcisweep run"
        echo "$name: iops_ratio_min=$(awk '{ print $1 }' "$BENCH_DIR/dr" | sort -g | head -n 1 | awk '{ printf "%.3f", $1 } END { if (NR == 0) printf "nan" }')" \
                "iops_ratio_median=$(awk '{ print $1 }' "$BENCH_DIR/dr" | bench_median)" \
                "cpu_per_io_ratio_median=$(awk '{ print $2 }' "$BENCH_DIR/dr" | bench_median)"
        awk -v a="$(direct_a_name)" '{ n++ } $5 < 0.97 { k++; if ($8 >= 1.0) m++; if ($11 < 0.97) w++ }
             END { printf "# direct points below 0.97: %d of %d; of those, %d had a pair with %s ahead," \
                          " %d lie below 0.97 with their whole interval\n", k, n, m, a, w }' \
                "$BENCH_DIR/dratios"
        read -r null_med null_p5 < <(direct_null_min "$BENCH_DIR/dpairs" 2000)
        echo "# equal tools would give these pairs iops_ratio_min=$null_med (the median of 2000 draws," \
                "each pair's ratio inverted at random; below $null_p5 one draw in 20)"
}
