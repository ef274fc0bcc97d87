#!/usr/bin/env bash
# gpu-sync.sh [BUILD_DIR]: on the GPU machine (../shared/GPU_MACHINE.md), in
# one call, what the host synchronization and collectives need there:
# 1. Criterion suites that run the host API's barriers, collectives and
#    waits on CUDA heaps and beside device kernels, GPU_SYNC_FILTERS (a
#    space list of Criterion filters, each run in turn and bounded by
#    GPU_SYNC_FILTER_S seconds; none starts after GPU_SYNC_SUITE_S seconds
#    into the call);
# 2. with GPU_SYNC_PERF=1 (the default), scripts/perf-coll.sh on the
#    machine's cores (host heaps, shm and ofi-tcp, beside its Open MPI).
# With one GPU the PEs share it under MPS, started and stopped here. The
# device error tests (gpu_device/err_*) fault a kernel on purpose, which
# leaves an MPS server unusable: keep them last in the list.
# Results: $OUT/sync-logs.tgz (sync-<n>.log per filter), $OUT/perf-coll.tgz.
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
  # in the build folder: simulated nodes (cluster::gpu_*) cover /tmp with
  # their own, but see the build
  export CUDA_MPS_PIPE_DIRECTORY=$gpu_env_build/.mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && mps=1
fi
filters=${GPU_SYNC_FILTERS:-"host_cuda/* heap_auto/* gpu_device/!(err_*) gpu_device/err_*"}
k=0
set -f   # the filters are Criterion patterns: python/* must not match ./python
for f in $filters; do
  k=$((k + 1))
  if [ "$SECONDS" -ge "${GPU_SYNC_SUITE_S:-330}" ]; then
    echo "$f: not started (past GPU_SYNC_SUITE_S)"; status=1; continue
  fi
  timeout "${GPU_SYNC_FILTER_S:-300}" "$B/tests/gshmem-tests" --verbose \
    --jobs "${GPU_SYNC_JOBS:-2}" --filter "$f" >"$OUT/sync-$k.log" 2>&1 || status=1
  printf '%-24s %s\n' "$f" "$(grep -E 'Synthesis' "$OUT/sync-$k.log" | tail -1)"
  grep -E '^\[FAIL\]' "$OUT/sync-$k.log" | head -8
done
set +f
# one archive of the logs (the device tool brings back a few files only)
tar czf "$OUT/sync-logs.tgz" -C "$OUT" $(cd "$OUT" && ls sync-*.log) && rm -f "$OUT"/sync-*.log
if [ "${GPU_SYNC_PERF:-1}" = 1 ]; then
  pc=$(mktemp -d)
  FLAGS=${GPU_SYNC_FLAGS:-"-b 8 -e 1M -f 8 -n 100 -w 10"} BUILD=$B TIMEOUT=120 \
    bash scripts/perf-coll.sh "$pc/perf-coll" >"$OUT/perf-coll.log" 2>&1 || status=1
  tar czf "$OUT/perf-coll.tgz" -C "$pc" perf-coll
  head -40 "$pc/perf-coll/summary.md" 2>/dev/null
fi
[ "$mps" = 1 ] && echo quit | nvidia-cuda-mps-control
exit $status
