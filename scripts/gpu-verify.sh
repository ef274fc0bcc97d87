#!/usr/bin/env bash
# After a change to device or setup code: the whole Criterion suite on the
# GPU machine, then the programs whose setup or kernels changed, checked
# (not timed), in one call of the device tool:
#   OUT=... bash scripts/gpu-verify.sh BUILD_DIR
# 1. GPU_CHECK_SUITE_ONLY=1 scripts/gpu-check.sh (tests.log, gpus.txt);
# 2. the stage DLRM demo's correctness runs and one G case per mode
#    (apps/stage/dlrm_bench.sh, pruned to tables/PE 64, batch 2048);
# 3. scripts/dlrm-bench.sh check (every weight type against fp64).
# VERIFY_DEADLINE (seconds, default 540) ends the run in time for the tool's
# limit: a step starts only with 60 s left, and dlrm-bench gets the rest.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:?usage: scripts/gpu-verify.sh BUILD_DIR}
OUT=${OUT:-/tmp/gshmem-verify-out}
end=$(( $(date +%s) + ${VERIFY_DEADLINE:-540} ))
left() { echo $(( end - $(date +%s) )); }
mkdir -p "$OUT"
status=0
echo "== 1. suite =="
OUT=$OUT GPU_CHECK_SUITE_ONLY=1 timeout $(( $(left) - 120 )) bash scripts/gpu-check.sh "$B" ||
  status=1
if [ "$(left)" -gt 60 ]; then
  echo "== 2. stage DLRM demo ($(left) s left) =="
  mkdir -p "$OUT/stage-dlrm"
  ( . scripts/gpu-env.sh "$B"
    DLRM_STAGE_TPP=64 DLRM_STAGE_BATCH=2048 timeout $(( $(left) - 30 )) \
      bash apps/stage/dlrm_bench.sh "$B" "$OUT/stage-dlrm" ) >"$OUT/stage-dlrm.log" 2>&1 ||
    status=1
  grep -E "check|FAIL|per_slice|boundary" "$OUT/stage-dlrm.log" | tail -15
fi
if [ "$(left)" -gt 60 ]; then
  echo "== 3. dlrm check ($(left) s left) =="
  OUT=$OUT/dlrm DLRM_DEADLINE=$(( $(left) - 10 )) bash scripts/dlrm-bench.sh "$B" check \
    >"$OUT/dlrm-check.log" 2>&1 || status=1
  grep -E "OK|FAIL|check" "$OUT/dlrm-check.log" | tail -15
fi
echo "gpu-verify: status $status, $(left) s left"
exit $status
