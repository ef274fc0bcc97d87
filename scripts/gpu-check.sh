#!/usr/bin/env bash
# Runs on the GPU machine (see ../shared/GPU_MACHINE.md) over a build made on
# the development machine and carried along:
#   scripts/gpu-check.sh [BUILD_DIR]
# 1. the whole Criterion suite (host tests plus the GPU tests, which run
#    here instead of skipping; GSHMEM_TEST_FILTER picks some), 2. the main
#    job (scripts/run-main.sh: its table, CSV, plot and progress lines),
#    3. the GPU programs that are not Criterion tests (ring producer test,
#    litmus, compute-sanitizer); GPU_CHECK_SUITE_ONLY=1 stops after 1,
#    GPU_CHECK_NO_PROGRAMS=1 after 2. Logs go to $OUT (or /tmp/gshmem-gpu-out).
# Criterion is not installed there: its runtime libraries travel in .gpu/lib
# (copied from the development machine, see README).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
OUT=${OUT:-/tmp/gshmem-gpu-out}
mkdir -p "$OUT"
# Paths, NCCL and the machine's rules (no NVLink multicast, loopback only).
. scripts/gpu-env.sh "$B"

{ nvidia-smi -L; nvidia-smi topo -m; } >"$OUT/gpus.txt" 2>&1
cat "$OUT/gpus.txt"
status=0
echo "== Criterion suite (GPU tests included) =="
# As many test jobs as GPUs (GPU_CHECK_JOBS overrides): more share GPUs by
# time-slicing, and the queue-path tests then crawl (seen on 2 x H200 with 4).
jobs=${GPU_CHECK_JOBS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "${jobs:-0}" -ge 1 ] || jobs=1
"$B/tests/gshmem-tests" --verbose --jobs "$jobs" ${GSHMEM_TEST_FILTER:+--filter "$GSHMEM_TEST_FILTER"} \
  >"$OUT/tests.log" 2>&1 || status=1
grep -E "^\[----\]|Synthesis|FAIL|Crash" "$OUT/tests.log" | tail -40
if [ "${GPU_CHECK_SUITE_ONLY:-0}" = 1 ]; then exit $status; fi
echo "== the main job (scripts/run-main.sh) =="
if bash scripts/run-main.sh "$B" --csv "$OUT/main.csv" --plot "$OUT/main.png" \
     >"$OUT/main.txt" 2>"$OUT/main-progress.txt"; then
  cat "$OUT/main.txt"
  echo "main job: OK, $(grep -c . "$OUT/main-progress.txt") progress lines, $(($(wc -l <"$OUT/main.csv") - 1)) CSV rows"
else
  echo "main job: FAILED (status $?)"; tail -20 "$OUT/main.txt" "$OUT/main-progress.txt"; status=1
fi
if [ "${GPU_CHECK_NO_PROGRAMS:-0}" = 1 ]; then exit $status; fi
echo "== GPU programs =="
L="$B/tools/gshmemrun/gshmemrun"
mkdir -p "$OUT/logs"
if [ -x "$B/tests/ring/gshmem-ring-gpu" ]; then
  gpu_run ring-gpu 120 "$B/tests/ring/gshmem-ring-gpu"
fi
if [ -x "$B/tests/pe/pe_litmus" ]; then
  # 2^20 block-rounds per PE and variant, both paths; zero violations.
  for v in fence signal; do
    gpu_run "litmus-p2p-$v-n4" 300 env GSHMEM_HEAP=cuda "$L" -n 4 "$B/tests/pe/pe_litmus" $v 8192
    gpu_run "litmus-queue-$v-n2" 300 env GSHMEM_HEAP=cuda GSHMEM_DEVICE_QUEUE_ONLY=1 \
      "$L" -n 2 "$B/tests/pe/pe_litmus" $v 8192
  done
  gpu_run litmus-queue-ofi-fence-n2 300 env GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 \
    GSHMEM_TRANSPORTS=p2p,ofi GSHMEM_OFI_PROVIDER=shm "$L" -n 2 "$B/tests/pe/pe_litmus" fence 256
  # compute-sanitizer on a representative subset (every PE under the tool).
  for tool in memcheck racecheck; do
    gpu_run "sanitizer-$tool-rma" 300 env GSHMEM_HEAP=cuda "$L" -n 2 compute-sanitizer --tool $tool \
      --error-exitcode 9 "$B/tests/pe/pe_dev_rma"
    gpu_run "sanitizer-$tool-litmus" 300 env GSHMEM_HEAP=cuda "$L" -n 2 compute-sanitizer \
      --tool $tool --error-exitcode 9 "$B/tests/pe/pe_litmus" signal 64
    # the queue path (device producers, engine, p2p small-op batch kernels)
    gpu_run "sanitizer-$tool-queue" 120 env GSHMEM_HEAP=cuda GSHMEM_DEVICE_QUEUE_ONLY=1 "$L" -n 2 \
      compute-sanitizer --tool $tool --error-exitcode 9 "$B/tests/pe/pe_litmus" signal 64
  done
  grep -h "violations" "$OUT"/logs/litmus-*.log | sed 's/^/  /'
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$OUT"/logs/sanitizer-*.log | sort | uniq -c |
    sed 's/^/  /'
fi
# The tool brings back a few files only: one archive of the step logs.
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
exit $status
