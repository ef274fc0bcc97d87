#!/usr/bin/env bash
# gpu-sync.sh [BUILD_DIR]: on the GPU machine (../shared/GPU_MACHINE.md), in
# one call, what the host synchronization and collectives need there:
# 1. the Criterion suites that run the host API on CUDA heaps and the GPU
#    apps (their barriers, collectives and waits), GPU_SYNC_SUITES;
# 2. scripts/perf-coll.sh on the machine's cores (host heaps, shm and
#    ofi-tcp, beside its Open MPI), for the thresholds' second machine;
# 3. gshmem-perf-coll on CUDA heaps (GSHMEM_HEAP=cuda) at 2 PEs, checked.
# With one GPU the PEs share it under MPS, started and stopped here.
# Results: $OUT/sync-*.log, $OUT/perf-coll.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
OUT=${OUT:-/tmp/gshmem-gpu-sync}
mkdir -p "$OUT"
. scripts/gpu-env.sh "$B"
status=0
n_gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
mps=0
if [ "${n_gpus:-0}" -lt 2 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && mps=1
fi
suites=${GPU_SYNC_SUITES:-"host_cuda heap_auto gpu_device gpu_stream ofi_cuda stage_gpu agg_gpu dlrm sparse wait_dead wait_slow api_coll coll_ref"}
for s in $suites; do
  "$B/tests/gshmem-tests" --jobs "${GPU_SYNC_JOBS:-2}" --filter "$s/*" >"$OUT/sync-$s.log" 2>&1 ||
    status=1
  printf '%-12s %s\n' "$s" "$(grep -E 'Synthesis' "$OUT/sync-$s.log" | tail -1)"
  grep -E '^\[FAIL\]' "$OUT/sync-$s.log" | head -5
done
pc=$(mktemp -d)
BUILD=$B TIMEOUT=120 bash scripts/perf-coll.sh "$pc/perf-coll" ${GPU_SYNC_PERF_FLAGS:-} \
  >"$OUT/perf-coll.log" 2>&1 || status=1
L="$B/tools/gshmemrun/gshmemrun"
GSHMEM_HEAP=cuda timeout 300 "$L" -n 2 "$B/apps/perf/host/gshmem-perf-coll" \
  -b 8 -e 1M -f 8 -n 50 -w 5 -o "$pc/perf-coll/cuda-heap-P2.csv" \
  >"$pc/perf-coll/cuda-heap-P2.log" 2>&1 || status=1
tail -25 "$pc/perf-coll/cuda-heap-P2.log"
tar czf "$OUT/perf-coll.tgz" -C "$pc" perf-coll
cat "$pc/perf-coll/summary.md" 2>/dev/null | head -60
[ "$mps" = 1 ] && echo quit | nvidia-cuda-mps-control
exit $status
