#!/usr/bin/env bash
# Runs gshmem-stage-dlrm (DLRM interaction per slice vs after a kernel
# boundary) on the GPUs of this machine; called by scripts/stage-bench.sh.
#   apps/stage/dlrm_bench.sh BUILD_DIR OUT_DIR
# 1. a cross-PE correctness run at 2 PEs (small case; on a one-GPU machine
#    both PEs share the GPU, time-sliced: its times mean nothing);
# 2. BENCHMARKS.md's G set at P = the number of GPUs (the set is defined at
#    P = 4; on fewer GPUs the same per-PE sizes run at that P). On one GPU
#    only the smaller G cases run (P = 1: no All-to-All traffic).
set -uo pipefail
B=$1
OUT=$2
L="$B/host/launcher/gshmemrun"
X="$B/apps/stage/gshmem-stage-dlrm"
export GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p GSHMEM_SYMMETRIC_SIZE=10G
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
status=0
echo "== 2 PEs, correctness (tables/PE 8, batch 512, dim 64) =="
timeout 240 "$L" -n 2 --timeout 220 "$X" -t 8 -b 512 -d 64 -r 10000 -l 16 -n 20 -w 2 \
  -o "$OUT/dlrm_check.csv" || status=1
if [ "$ngpu" -ge 2 ]; then
  echo "== G set at P = $ngpu =="
  timeout 600 "$L" -n "$ngpu" --timeout 580 "$X" -o "$OUT/dlrm_raw.csv" || status=1
else
  echo "== G set, smaller cases, P = 1 (one GPU) =="
  timeout 300 "$L" -n 1 --timeout 280 "$X" -t 32,64 -b 512,1024,2048 -o "$OUT/dlrm_raw.csv" ||
    status=1
fi
exit $status
