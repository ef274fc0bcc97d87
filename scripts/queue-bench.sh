#!/usr/bin/env bash
# queue-bench.sh: the queue path (device SQ -> proxy engine -> transport)
# beside its anchors, in one run (BENCHMARKS.md section 1, queue_latency
# and queue_rate; issue "Queue path at doorbell speed").
#
#   scripts/queue-bench.sh OUTDIR
#
# Paths, one after the other: (a) the engine with P2P peers
# (GSHMEM_DEVICE_QUEUE_ONLY=1, the programs set it), (b) ofi/shm and (c)
# ofi/tcp;ofi_rxm on loopback; (a) also with GSHMEM_P2P_BATCH=0 (the p2p
# small-op batch's A/B). Anchors in the same run: the bare
# host-mapped doorbell round trip (inside queue-latency) and the provider's
# own round trip, fi_pingpong (PATH, or .gpu/bin as gpu-pack.sh carries it).
# The GPU rows need 2 GPUs for (b) and (c): with one GPU the two processes
# time-slice it and the target's copies wait for the sender's kernel, so
# those rows are skipped with that reason. The host rows (gshmem-perf-queue-host:
# host threads as producers, host heap) run everywhere, GPU or not.
# Environment: BUILD (default ./build), TIMEOUT (s per run, default 300),
# QL_FLAGS, QR_FLAGS, QH_FLAGS. Writes OUTDIR/<path>-<bench>.{csv,log},
# OUTDIR/pingpong-<prov>.log, OUTDIR/summary.md (also printed).
set -u

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -lt 1 ] && exit 2 || exit 0
fi
out=$1
root_dir=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root_dir/build}
case $build in /*) ;; *) build=$PWD/$build ;; esac
timeout_s=${TIMEOUT:-300}
run=$build/tools/gshmemrun/gshmemrun
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
QL_FLAGS=${QL_FLAGS:--b 8 -e 8 -n 30 -w 3 -r 200}
QR_FLAGS=${QR_FLAGS:--b 8 -e 8 -W 128 -p 64 -n 20 -w 2}
QH_FLAGS=${QH_FLAGS:-}
export FI_TCP_IFACE=lo
[ -f "$build/CMakeCache.txt" ] && command -v nvidia-smi >/dev/null && . "$root_dir/scripts/gpu-env.sh" "$build"
PATH=$PATH:$root_dir/.gpu/bin
fails=0
summary=$out/summary.md
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# fi_pingpong PROVIDER: the provider's own 8 B round trip on loopback, us.
pingpong() {
    local prov=$1 log=$out/pingpong-${1//;/_}.log
    if ! command -v fi_pingpong >/dev/null; then
        echo "fi_pingpong not found" >"$log"; echo nan; return
    fi
    local port=$((20000 + RANDOM % 20000))
    timeout 60 fi_pingpong -p "$prov" -e rdm -S 8 -I 20000 -B "$port" >"$log.server" 2>&1 &
    local spid=$!
    sleep 0.5
    timeout 60 fi_pingpong -p "$prov" -e rdm -S 8 -I 20000 -P "$port" 127.0.0.1 >"$log" 2>&1
    wait $spid
    # columns: bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec;
    # a round trip is two transfers
    awk '$1 == "8" && NF >= 8 {printf "%.2f\n", 2 * $7; found=1} END {if (!found) print "nan"}' "$log"
}

# bench PATHNAME PROGRAM ENV-AND-COMMAND...: one gshmemrun -n 2 run of the
# command (its last words are the program's flags), -o CSV + log.
bench() {
    local path=$1 prog=$2; shift 2
    local base=$out/$path-${prog#gshmem-perf-}
    if ! timeout "$timeout_s" "$run" -n 2 "$@" -o "$base.csv" >"$base.log" 2>&1; then
        say "- $path $prog: FAILED (rc $?, see $(basename "$base.log"))"
        tail -20 "$base.log"
        fails=$((fails + 1))
        return 1
    fi
    say "- $path $prog:"
    grep -v '^#' "$base.log" | grep . | sed 's/^/      /' | tee -a "$summary"
}

say "# queue path benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)"
say ""
say "anchors: fi_pingpong 8 B RDM round trip (2 x usec/xfer), us: shm $(pingpong shm), tcp $(pingpong tcp), tcp;ofi_rxm $(pingpong 'tcp;ofi_rxm')"
say ""

ngpu=0
command -v nvidia-smi >/dev/null && ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
dev=$build/apps/perf/device
if [ "$ngpu" -ge 1 ] && [ -x "$dev/gshmem-perf-dev-queue-latency" ]; then
    say "## device producers ($ngpu GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
    bench p2p gshmem-perf-dev-queue-latency env "$dev/gshmem-perf-dev-queue-latency" $QL_FLAGS
    bench p2p gshmem-perf-dev-queue-rate env "$dev/gshmem-perf-dev-queue-rate" $QR_FLAGS
    # the same without the p2p small-op batch (a CUDA call per put): its A/B
    bench p2p-nobatch gshmem-perf-dev-queue-latency env GSHMEM_P2P_BATCH=0 \
        "$dev/gshmem-perf-dev-queue-latency" $QL_FLAGS
    bench p2p-nobatch gshmem-perf-dev-queue-rate env GSHMEM_P2P_BATCH=0 \
        "$dev/gshmem-perf-dev-queue-rate" $QR_FLAGS
    if [ "$ngpu" -ge 2 ]; then
        for prov in shm 'tcp;ofi_rxm'; do
            bench "ofi-${prov//;/_}" gshmem-perf-dev-queue-latency env GSHMEM_TRANSPORTS=ofi \
                GSHMEM_OFI_PROVIDER="$prov" "$dev/gshmem-perf-dev-queue-latency" $QL_FLAGS
            bench "ofi-${prov//;/_}" gshmem-perf-dev-queue-rate env GSHMEM_TRANSPORTS=ofi \
                GSHMEM_OFI_PROVIDER="$prov" "$dev/gshmem-perf-dev-queue-rate" $QR_FLAGS
        done
    else
        say "- ofi/shm, ofi/tcp device rows: skipped: one GPU (two PEs would time-slice it; see GPU_MACHINE.md)"
    fi
    say ""
fi

qh=$build/apps/perf/host/gshmem-perf-queue-host
if [ -x "$qh" ]; then
    say "## host producers (host heap, engine over host channels)"
    bench host-shm gshmem-perf-queue-host env GSHMEM_HEAP=host GSHMEM_TRANSPORTS=shm "$qh" $QH_FLAGS
    for prov in shm 'tcp;ofi_rxm'; do
        bench "host-ofi-${prov//;/_}" gshmem-perf-queue-host env GSHMEM_HEAP=host \
            GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER="$prov" "$qh" $QH_FLAGS
    done
fi
[ $fails -eq 0 ] || say "$fails run(s) FAILED"
exit $((fails > 0))
