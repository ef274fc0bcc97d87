#!/usr/bin/env bash
# Runs on a GPU machine over a build made on the development machine and
# carried along (see README "Tile-granular synchronization"):
#   scripts/stage-bench.sh [BUILD_DIR] [M list]
# 1. the stage tests of the Criterion suite (CPU maps and the GPU tests:
#    poisoned producer outputs, every policy and launch mode, producer on
#    another PE over P2P and the queue path, the wait timeout);
# 2. gshmem-stage-mlp for each M (one process each, so that a failing size
#    cannot take the others with it), raw rows appended to mlp_raw.csv;
# 3. apps/stage/dlrm_interact when it was built.
# STAGE_ONLY=tests|mlp|dlrm runs one part. Everything goes to $OUT (or
# /tmp/gshmem-stage-out): logs in one archive.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-stage}
MS=${2:-"1 32 128 256 384 512 768 1024 1536 2048"}
OUT=${OUT:-/tmp/gshmem-stage-out}
ONLY=${STAGE_ONLY:-all}
part() { [ "$ONLY" = all ] || [ "$ONLY" = "$1" ]; }
mkdir -p "$OUT/logs"
# The build holds absolute paths of the checkout it was configured in.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$B/CMakeCache.txt")
if [ -n "$src" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -sfn "$PWD" "$src"; fi
pylib=$(python3 -c "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))" 2>/dev/null || true)
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$PWD/$B:/usr/local/cuda/lib64:${pylib:+$pylib/nvidia/cublas/lib:$pylib/nvidia/nccl/lib:}${LD_LIBRARY_PATH:-}

export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 FI_TCP_IFACE=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
status=0
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } \
  >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

part tests && echo "== stage tests =="
part tests && for f in 'stage/*' 'stage_gpu/*'; do
  GSHMEM_TEST_BUILD_DIR=$PWD/$B timeout 400 "$B/tests/gshmem-tests" --jobs 2 --verbose --filter "$f" >>"$OUT/tests.log" 2>&1 ||
    status=1
done
part tests && grep -E "stage(_gpu)?::.*(PASS|FAIL|CRASH|SKIP.*: no )|Synthesis|[Cc]rash" "$OUT/tests.log" |
  grep -v "Test is disabled" | sed 's/^/  /'

part mlp && echo "== MLP benchmark =="
part mlp && for m in $MS; do
  if timeout 240 "$B/apps/stage/gshmem-stage-mlp" -m "$m" -n 25 -w 3 -o "$OUT/mlp_raw.csv" \
       >"$OUT/logs/mlp_M$m.log" 2>&1; then
    echo "M $m: done"
  else
    echo "M $m: FAILED (status $?)"; tail -5 "$OUT/logs/mlp_M$m.log"; status=1
  fi
done
part mlp && cat "$OUT"/logs/mlp_M*.log >"$OUT/mlp.log"

if part dlrm && [ -x "$B/apps/stage/gshmem-stage-dlrm" ]; then
  echo "== DLRM interaction =="
  timeout 300 bash apps/stage/dlrm_bench.sh "$B" "$OUT" >"$OUT/dlrm.log" 2>&1 || status=1
  tail -30 "$OUT/dlrm.log"
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
exit $status
