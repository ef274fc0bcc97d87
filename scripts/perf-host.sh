#!/usr/bin/env bash
# perf-host.sh: run the host benchmarks (put latency, put bandwidth) on 2 PEs
# over each transport and keep the tables as CSV files.
#
#   scripts/perf-host.sh OUTDIR [extra benchmark flags...]
#
# Environment: BUILD (build directory, default ./build), GSHMEMRUN (launcher,
# default $BUILD/tools/gshmemrun/gshmemrun), TRANSPORTS (space-separated subset
# of "shm ofi-shm ofi-tcp", default all three), TIMEOUT (seconds per run,
# default 600). Extra flags go to both benchmarks, e.g. -n 50 -e 1M.
# Writes OUTDIR/<benchmark>-<transport>.csv and prints every table. Exits
# non-zero if any run failed (and says which).
set -u

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -lt 1 ] && exit 2 || exit 0
fi
out=$1
shift
build=${BUILD:-$(pwd)/build}
run=${GSHMEMRUN:-$build/tools/gshmemrun/gshmemrun}
transports=${TRANSPORTS:-"shm ofi-shm ofi-tcp"}
timeout=${TIMEOUT:-600}

for f in "$run" "$build/apps/perf/host/gshmem-perf-put-latency" \
         "$build/apps/perf/host/gshmem-perf-put-bw"; do
    if [ ! -x "$f" ]; then
        echo "perf-host.sh: $f not found or not executable (set BUILD=<build dir>)" >&2
        exit 2
    fi
done
mkdir -p "$out" || exit 2

# Environment of one transport variant (same names as the tests use), on
# host heaps (GSHMEM_HEAP=auto gives GPU memory in a CUDA build on a GPU
# machine; the benchmarks also ask for host memory themselves).
tp_env() {
    case $1 in
    shm) echo "GSHMEM_HEAP=host GSHMEM_TRANSPORTS=shm" ;;
    ofi-shm) echo "GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm" ;;
    ofi-tcp) echo "GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=tcp;ofi_rxm FI_TCP_IFACE=lo" ;;
    *) return 1 ;;
    esac
}

failed=""
for tp in $transports; do
    envs=$(tp_env "$tp") || { echo "perf-host.sh: unknown transport '$tp'" >&2; exit 2; }
    for bench in put-latency put-bw; do
        csv="$out/$bench-$tp.csv"
        echo "=== $bench over $tp ($envs)"
        # shellcheck disable=SC2086  # envs is a list of NAME=value words
        if ! env $envs "$run" -n 2 --timeout "$timeout" \
                "$build/apps/perf/host/gshmem-perf-$bench" -o "$csv" "$@"; then
            echo "perf-host.sh: $bench over $tp FAILED" >&2
            failed="$failed $bench/$tp"
        fi
        echo
    done
done

if [ -n "$failed" ]; then
    echo "perf-host.sh: failed runs:$failed" >&2
    exit 1
fi
echo "perf-host.sh: CSV files in $out"
