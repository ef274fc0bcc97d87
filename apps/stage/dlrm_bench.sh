#!/usr/bin/env bash
# Runs gshmem-stage-dlrm (DLRM interaction per slice, concurrent with the
# fused kernel, vs after a kernel boundary) on the GPUs of this machine;
# called by scripts/stage-bench.sh, or alone:
#   apps/stage/dlrm_bench.sh BUILD_DIR OUT_DIR
# 1. cross-PE correctness runs on small cases: 2 PEs with every table
#    block spanning both PEs (on a one-GPU machine both PEs share the GPU,
#    time-sliced: its times mean nothing), and P = #GPUs with 40 tables per
#    PE (blocks of 32 tables straddling two PEs);
# 2. BENCHMARKS.md's G set at P = the number of GPUs (the set is defined at
#    P = 4; on fewer GPUs the same per-PE sizes run at that P). On one GPU
#    only the smaller G cases run (P = 1: no All-to-All traffic).
#    DLRM_STAGE_TPP / DLRM_STAGE_BATCH (comma lists) run a subset instead.
# Stops after a failed correctness run (no timing of a broken build).
# Waits are bounded by GSHMEM_TIMEOUT (30 s here): a hang ends as a trap.
set -uo pipefail
B=$1
OUT=$2
L="$B/tools/gshmemrun/gshmemrun"
X="$B/apps/stage/gshmem-stage-dlrm"
export GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p GSHMEM_SYMMETRIC_SIZE=10G
export GSHMEM_TIMEOUT=${GSHMEM_TIMEOUT:-30}
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
status=0
echo "== 2 PEs, correctness (tables/PE 8, batch 512, dim 64) =="
timeout 120 "$L" -n 2 --timeout 110 "$X" -t 8 -b 512 -d 64 -r 10000 -l 16 -n 20 -w 2 \
  -o "$OUT/dlrm_check.csv" || exit 1
if [ "$ngpu" -ge 2 ]; then
  echo "== $ngpu PEs, correctness (tables/PE 40, batch 1024, dim 64) =="
  timeout 120 "$L" -n "$ngpu" --timeout 110 "$X" -t 40 -b 1024 -d 64 -r 10000 -l 16 -n 20 -w 2 \
    -o "$OUT/dlrm_check.csv" || exit 1
fi
sel=()
[ -n "${DLRM_STAGE_TPP:-}" ] && sel+=(-t "$DLRM_STAGE_TPP")
[ -n "${DLRM_STAGE_BATCH:-}" ] && sel+=(-b "$DLRM_STAGE_BATCH")
if [ "$ngpu" -ge 2 ]; then
  echo "== G set at P = $ngpu =="
  timeout 600 "$L" -n "$ngpu" --timeout 580 "$X" "${sel[@]}" -o "$OUT/dlrm_raw.csv" || status=1
else
  echo "== G set, smaller cases, P = 1 (one GPU) =="
  [ ${#sel[@]} -eq 0 ] && sel=(-t 32,64 -b 512,1024,2048)
  timeout 300 "$L" -n 1 --timeout 280 "$X" "${sel[@]}" -o "$OUT/dlrm_raw.csv" || status=1
fi
exit $status
