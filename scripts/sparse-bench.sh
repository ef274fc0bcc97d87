#!/usr/bin/env bash
# sparse-bench.sh: apps/sparse_allreduce on a GPU machine (see
# ../shared/GPU_MACHINE.md), over a CUDA build made on the development
# machine and carried along:
#   scripts/sparse-bench.sh [BUILD_DIR]        (default build-sparse)
# 1. gshmem-sparse-allreduce --check on GPU PEs at P = 2 and 4 (every mode
#    against the CPU fp64 reference, the error case, the graph form);
# 2. the benchmark of BENCHMARKS.md section 3 (N = 5e6; dim 256, 2048;
#    density 0.1/1/10 %; uniform and Zipf(1.1)) at P = 4, then P = 2:
#    $OUT/sparse-p{4,2}.{csv,md}, tables of every mode's median time, the
#    speedups and the ratio to the bandwidth floor, with per-phase times.
# Env: OUT (default /tmp/sparse-out), ITERS (20), WARMUP (2), PS ("4 2"),
# CHECKS (PE counts of the checks, "2 4"),
# BENCH_TIMEOUT (seconds per P, 200), SANITIZE=1 adds compute-sanitizer
# memcheck over a --check of the gshmem modes at P = 2 (slow; bounded by
# SANITIZE_TIMEOUT, 240). Exits non-zero if a step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-sparse}
OUT=${OUT:-/tmp/sparse-out}
ITERS=${ITERS:-20}
WARMUP=${WARMUP:-2}
PS=${PS-"4 2"}
CHECKS=${CHECKS-"2 4"}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-200}
mkdir -p "$OUT/logs"
# Paths (NCCL from the Python environment) and the machine's rules.
. scripts/gpu-env.sh "$B"
L="$B/tools/gshmemrun/gshmemrun"
X="$B/apps/sparse_allreduce/gshmem-sparse-allreduce"

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host: $(hostname)"
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nvidia-smi topo -m
} >"$OUT/machine.txt" 2>&1
head -8 "$OUT/machine.txt"

status=0
last_rc=0
step() {   # step NAME TIMEOUT CMD...: its log in $OUT/logs/NAME.log
  local name=$1 t=$2 rc=0; shift 2
  local t0=$SECONDS
  timeout "$t" "$@" >"$OUT/logs/$name.log" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then echo "PASS $name ($((SECONDS - t0)) s)"; else
    echo "FAIL $name (status $rc, $((SECONDS - t0)) s)"; tail -25 "$OUT/logs/$name.log"; status=1; fi
  last_rc=$rc
}

# Device waits bounded at 10 s (checks) and 20 s (benchmark): a protocol
# fault costs seconds, not the machine's time; a check that hangs stops the
# script (the rest would hang the same way).
for P in $CHECKS; do
  step "check-n$P" 90 "$L" -n "$P" --timeout 85 "$X" --check --timeout 10
  if [ "$last_rc" -eq 124 ] || [ "$last_rc" -eq 137 ]; then
    tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
    exit 1
  fi
done
grep -h "FAIL\|SKIP\|all OK\|FAILED" "$OUT"/logs/check-n*.log | sort | uniq -c | head -20
for P in $PS; do
  step "bench-n$P" "$BENCH_TIMEOUT" "$L" -n "$P" --timeout "$BENCH_TIMEOUT" "$X" -n "$ITERS" \
    -w "$WARMUP" --timeout 20 --phases --csv "$OUT/sparse-p$P.csv" --md "$OUT/sparse-p$P.md"
  grep -h "NVLink\|CHECK FAILED\|failed" "$OUT/logs/bench-n$P.log" | head -5
  [ -f "$OUT/sparse-p$P.md" ] && cat "$OUT/sparse-p$P.md"
done
if [ "${SANITIZE:-0}" = 1 ]; then
  step sanitizer-check-n2 "${SANITIZE_TIMEOUT:-240}" env GSHMEM_HEAP=cuda "$L" -n 2 \
    --timeout "${SANITIZE_TIMEOUT:-240}" compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$X" --check --modes gshmem,gshmem-owner --timeout 60
  grep -h "ERROR SUMMARY" "$OUT/logs/sanitizer-check-n2.log" | sort | uniq -c
fi
# The run tool brings back a few files only: one archive of the step logs.
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
exit $status
