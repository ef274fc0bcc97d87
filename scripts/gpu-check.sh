#!/usr/bin/env bash
# Runs on the GPU machine (see ../shared/GPU_MACHINE.md) over a build made on
# the development machine and carried along:
#   scripts/gpu-check.sh [BUILD_DIR]
# 1. the whole Criterion suite (host tests plus the GPU tests, which run
#    here instead of skipping), 2. the GPU programs that are not Criterion
#    tests (ring producer test). Logs go to $OUT (or /tmp/gshmem-gpu-out).
# Criterion is not installed there: its runtime libraries travel in .gpu/lib
# (copied from the development machine, see README).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
OUT=${OUT:-/tmp/gshmem-gpu-out}
mkdir -p "$OUT"
# The build holds absolute paths of the development machine's checkout.
if [ ! -e /work/main ]; then mkdir -p /work && ln -sfn "$PWD" /work/main; fi
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$PWD/$B:${LD_LIBRARY_PATH:-}
export GSHMEM_TEST_BUILD_DIR=$PWD/$B
# Rules of the machine: no NVLink multicast, loopback only.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 FI_TCP_IFACE=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

{ nvidia-smi -L; nvidia-smi topo -m; } >"$OUT/gpus.txt" 2>&1
cat "$OUT/gpus.txt"
status=0
echo "== Criterion suite (GPU tests included) =="
"$B/tests/gshmem-tests" --jobs 8 ${GSHMEM_TEST_FILTER:+--filter "$GSHMEM_TEST_FILTER"} \
  >"$OUT/tests.log" 2>&1 || status=1
grep -E "^\[----\]|Synthesis|FAIL|Crash" "$OUT/tests.log" | tail -40
echo "== GPU programs =="
if [ -x "$B/device/gshmem-ring-gpu" ]; then
  "$B/device/gshmem-ring-gpu" 2>&1 | tee "$OUT/ring-gpu.log" || status=1
fi
exit $status
