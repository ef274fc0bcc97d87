#!/usr/bin/env bash
# perf-coll.sh: host synchronization and collectives of gshmem beside Open MPI
# in one run: gshmem-perf-coll under gshmemrun and gshmem-perf-coll-mpi under
# mpirun, for each PE count and transport, in alternating order.
#
#   scripts/perf-coll.sh OUTDIR [extra benchmark flags...]
#
# Environment: BUILD (build directory, default ./build), PES (default
# "2 4 8"), TRANSPORTS (subset of "shm ofi-tcp", default both), FLAGS (default
# "-b 8 -e 1M -f 8 -n 200 -w 20"), TIMEOUT (seconds per run, default 300),
# GSHMEMRUN (default $BUILD/tools/gshmemrun/gshmemrun), MPIRUN (default
# mpirun), MPIRUN_EXTRA (default "--bind-to none": gshmemrun binds nothing).
# Extra flags go to both programs after FLAGS, e.g. -O barrier,alltoall
# (at -f 8 the sweep ends at 256K; -e 1M -f 2 reaches 1M).
# Writes OUTDIR/raw/{gshmem,mpi}-P<P>-<transport>.{csv,log}, OUTDIR/joined.csv
# (op,bytes,P,transport,gshmem_us,mpi_us,ratio: medians of per-iteration
# maxima over PEs) and OUTDIR/summary.md. Exits non-zero if a run failed.
set -u

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
case ${1:-} in
-h | --help) usage; exit 0 ;;
"") usage >&2; exit 2 ;;
esac
out=$1
shift
build=${BUILD:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
run=${GSHMEMRUN:-$build/tools/gshmemrun/gshmemrun}
mpirun=${MPIRUN:-mpirun}
mpi_extra=${MPIRUN_EXTRA---bind-to none}
pes=${PES:-"2 4 8"}
transports=${TRANSPORTS:-"shm ofi-tcp"}
flags=${FLAGS:-"-b 8 -e 1M -f 8 -n 200 -w 20"}
timeout=${TIMEOUT:-300}
gbin=$build/apps/perf/host/gshmem-perf-coll
mbin=$build/apps/perf/host/gshmem-perf-coll-mpi
command_line="BUILD=${BUILD:-build} $0 $out $*"

for f in "$run" "$gbin"; do
    [ -x "$f" ] || { echo "perf-coll.sh: $f not found (set BUILD=<build dir>)" >&2; exit 2; }
done
have_mpi=1
if [ ! -x "$mbin" ]; then
    echo "perf-coll.sh: $mbin not built (no MPI found by CMake): gshmem only" >&2
    have_mpi=0
elif ! command -v "$mpirun" >/dev/null; then
    echo "perf-coll.sh: $mpirun not found: gshmem only" >&2
    have_mpi=0
fi
mkdir -p "$out/raw" || exit 2

# gshmem's environment of one transport (tests/common/tests_common.c's names).
tp_env() {
    case $1 in
    shm) echo "GSHMEM_HEAP=host GSHMEM_TRANSPORTS=shm" ;;
    ofi-tcp) echo "GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=tcp;ofi_rxm FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo" ;;
    *) return 1 ;;
    esac
}

# Open MPI's BTLs of the same transport.
mpi_btl() {
    case $1 in
    shm) echo "--mca btl self,vader" ;;
    ofi-tcp) echo "--mca btl self,tcp --mca btl_tcp_if_include lo" ;;
    esac
}

failed=""
# run_one gshmem|mpi P TRANSPORT [extra flags...]
run_one() {
    local lib=$1 n=$2 tp=$3 rc
    shift 3
    local base="$out/raw/$lib-P$n-$tp"
    echo "=== $lib, $n PEs, $tp"
    # shellcheck disable=SC2086,SC2046  # envs, flags and BTLs are lists of words
    if [ "$lib" = gshmem ]; then
        env $(tp_env "$tp") timeout "$((timeout + 10))" "$run" -n "$n" --timeout "$timeout" \
            "$gbin" $flags -o "$base.csv" "$@" 2>&1 | tee "$base.log"
    else
        env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            timeout "$timeout" "$mpirun" -n "$n" --oversubscribe $mpi_extra $(mpi_btl "$tp") \
            "$mbin" $flags -o "$base.csv" "$@" 2>&1 | tee "$base.log"
    fi
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ]; then
        echo "perf-coll.sh: $lib at $n PEs over $tp FAILED (status $rc)" >&2
        failed="$failed $lib/P$n/$tp"
    fi
}

load_before=$(uptime)
start=$(date +%s)
k=0
for n in $pes; do
    for tp in $transports; do
        tp_env "$tp" >/dev/null || { echo "perf-coll.sh: unknown transport '$tp'" >&2; exit 2; }
        order="gshmem mpi"
        [ $((k % 2)) -eq 1 ] && order="mpi gshmem"
        k=$((k + 1))
        for lib in $order; do
            [ "$lib" = mpi ] && [ "$have_mpi" = 0 ] && continue
            run_one "$lib" "$n" "$tp" "$@"
        done
        echo
    done
    # the next P starts with the other program
    [ $(( $(echo "$transports" | wc -w) % 2 )) -eq 0 ] && k=$((k + 1))
done
load_after=$(uptime)
elapsed=$(( $(date +%s) - start ))

# joined.csv: one row per (op, size) of either program, in the gshmem order.
join_csv() {
    echo "op,bytes,P,transport,gshmem_us,mpi_us,ratio"
    for n in $pes; do
        for tp in $transports; do
            local files=()
            for f in "$out/raw/gshmem-P$n-$tp.csv" "$out/raw/mpi-P$n-$tp.csv"; do
                [ -s "$f" ] && files+=("$f")
            done
            [ ${#files[@]} -eq 0 ] && continue
            awk -F, -v P="$n" -v tp="$tp" '
                FNR == 1 { next }
                { key = $1 "," $2
                  if (!(key in seen)) { seen[key] = 1; order[++rows] = key }
                  if (FILENAME ~ /\/gshmem-P/) g[key] = $5; else m[key] = $5 }
                END {
                  for (i = 1; i <= rows; i++) {
                    key = order[i]
                    gv = (key in g) ? g[key] : "NA"; mv = (key in m) ? m[key] : "NA"
                    r = (gv != "NA" && mv != "NA" && mv > 0) ? sprintf("%.2f", gv / mv) : "NA"
                    print key "," P "," tp "," gv "," mv "," r
                  }
                }' "${files[@]}"
        done
    done
}
join_csv > "$out/joined.csv"

# summary.md: ratio gshmem/MPI (and both medians) per op and size, one column
# per (P, transport).
pivot_md() {
    awk -F, -v cols="$1" '
        BEGIN { nc = split(cols, col, " ") }
        NR == 1 { next }
        { key = $1 " | " $2
          if (!(key in seen)) { seen[key] = 1; order[++rows] = key }
          cell[key, $3 "/" $4] = ($7 == "NA") ? $5 " / " $6 : \
              sprintf("%sx (%.2f / %.2f)", $7, $5, $6) }
        END {
          h = "| op | bytes |"; s = "|---|---:|"
          for (c = 1; c <= nc; c++) { h = h " P=" col[c] " |"; s = s "---:|" }
          print h; print s
          for (i = 1; i <= rows; i++) {
            line = "| " order[i] " |"
            for (c = 1; c <= nc; c++) line = line " " cell[order[i], col[c]] " |"
            print line
          }
        }' "$out/joined.csv"
}

cols=""
for n in $pes; do for tp in $transports; do cols="$cols $n/$tp"; done; done
{
    echo "# gshmem host collectives beside Open MPI"
    echo
    echo "Cells: gshmem/MPI ratio (gshmem us / MPI us), medians over iterations of the"
    echo "max over PEs of each iteration's time; barrier and sync rows are both"
    echo "MPI_Barrier on the MPI side. Raw tables (with mean, p99, min, max) in raw/."
    echo
    pivot_md "$cols"
    echo
    echo "- command: \`$command_line\`"
    echo "- flags: \`$flags${*:+ $*}\`; mpirun: \`--oversubscribe $mpi_extra\` + BTLs per transport"
    echo "- machine: $(nproc) CPUs; \`$(uname -a)\`"
    echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $elapsed s in all"
    echo "- load before: \`$load_before\`"
    echo "- load after: \`$load_after\`"
    [ "$have_mpi" = 0 ] && echo "- MPI program not run (not built or no mpirun)"
    [ -n "$failed" ] && echo "- FAILED runs:$failed"
} > "$out/summary.md"
cat "$out/summary.md"

if [ -n "$failed" ]; then
    echo "perf-coll.sh: failed runs:$failed" >&2
    exit 1
fi
echo "perf-coll.sh: results in $out (joined.csv, summary.md, raw/)"
