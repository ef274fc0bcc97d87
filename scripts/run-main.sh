#!/usr/bin/env bash
# The README's main job: gshmem-dlrm (fused DLRM embedding + all-to-all
# against the embedding-bag + all-to-all + unpack baseline) on the GPUs
# present, one PE per GPU, or on 4 CPU PEs where there is no GPU; every
# mode checked against an fp64 reference, then timed; prints the table.
#   scripts/run-main.sh [BUILD_DIR] [extra gshmem-dlrm flags]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
shift || true
ngpu=0
if command -v nvidia-smi >/dev/null 2>&1; then
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
fi
cuda=$(grep -c '^GSHMEM_ENABLE_CUDA:BOOL=ON' "$B/CMakeCache.txt" 2>/dev/null || true)
if [ "$ngpu" -gt 0 ] && [ "${cuda:-0}" -gt 0 ]; then
  # the machine's rules (GPU_MACHINE.md): no NVLink multicast; NCCL from
  # the Python environment when it is there
  export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
  py=$(python3 -c "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))" 2>/dev/null || true)
  [ -n "$py" ] && export LD_LIBRARY_PATH=$py/nvidia/nccl/lib:${LD_LIBRARY_PATH:-}
  echo "== gshmem-dlrm on $ngpu GPU(s) =="
  exec "$B/tools/gshmemrun/gshmemrun" -n "$ngpu" "$B/apps/dlrm/gshmem-dlrm" \
    --config G --batch 4096 --tables-per-pe 64 --check "$@"
fi
echo "== gshmem-dlrm on 4 CPU PEs (no GPU$([ "$ngpu" -gt 0 ] && echo " support in this build")) =="
exec "$B/tools/gshmemrun/gshmemrun" -n 4 "$B/apps/dlrm/gshmem-dlrm" --config tiny --check \
  --device cpu "$@"
