#!/usr/bin/env bash
# Runs on the GPU machine (see ../shared/GPU_MACHINE.md) over a CUDA build
# made on the development machine and carried along (scripts/gpu-pack.sh):
#   scripts/gpu-python.sh [BUILD_DIR]
# The Python package (python/gshmem, from BUILD_DIR/python) with the
# machine's PyTorch, one PE per GPU, at P = 2 and 4 where there are GPUs:
#  1. tests/python on CUDA heaps: symmetric CUDA tensors and the stream-
#     ordered calls (pe_py_torch.py cuda), stream order and CUDA graphs
#     (pe_py_cuda.py), the DLRM op against the fp64 reference (pe_py_dlrm.py
#     cuda), also over the queue path (P2P off, libfabric tcp); and on host
#     heaps, the programs CI runs;
#  2. apps/dlrm/torch_example.py: tiny with --check (under gshmemrun and
#     under torchrun), then set G (the issue's
#     goal: the op >= 2.5x EmbeddingBag + all_to_all_single at P = 4), its
#     table in $OUT/torch_example_G_n<P>.txt.
# PY_G_ARGS overrides the G run's extra flags (default: --iters 20 --warmup 3).
# Logs go to $OUT (or /tmp/gshmem-gpu-out); PASS/FAIL per step; status 1 on
# any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
OUT=${OUT:-/tmp/gshmem-gpu-out}
mkdir -p "$OUT"
. scripts/gpu-env.sh "$B"
export PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$gpu_env_build/python:$PWD/tests/python
L="$gpu_env_build/tools/gshmemrun/gshmemrun"
status=0
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
python3 -c "import torch; print('python3: torch', torch.__version__, 'CUDA', torch.version.cuda,
'sees', torch.cuda.device_count(), 'GPU(s)')" | tee "$OUT/python.txt"
for n in 2 4; do
  if [ "$ngpu" -lt "$n" ]; then echo "SKIP P = $n: $ngpu GPU(s)"; continue; fi
  gpu_run "py-torch-cuda-n$n" 300 "$L" -n "$n" python3 tests/python/pe_py_torch.py cuda
  gpu_run "py-cuda-n$n" 300 "$L" -n "$n" python3 tests/python/pe_py_cuda.py
  gpu_run "py-dlrm-cuda-n$n" 300 "$L" -n "$n" python3 tests/python/pe_py_dlrm.py cuda
  # the op over the queue path (no P2P: staging, device queue, engine, libfabric
  # tcp on loopback), as between nodes; GSHMEM_TIMEOUT names a stuck slice sooner
  gpu_run "py-dlrm-cuda-queue-n$n" 300 env "${gpu_net_env[@]}" GSHMEM_TIMEOUT=20 "$L" -n "$n" \
    python3 -X faulthandler tests/python/pe_py_dlrm.py cuda
  gpu_run "py-basic-host-n$n" 300 env GSHMEM_HEAP=host "$L" -n "$n" python3 \
    tests/python/pe_py_basic.py
  gpu_run "py-dlrm-host-n$n" 300 "$L" -n "$n" python3 tests/python/pe_py_dlrm.py host
  gpu_run "py-example-tiny-n$n" 300 "$L" -n "$n" python3 apps/dlrm/torch_example.py \
    --config tiny --check
  # the same under torchrun (one node: its ranks are the PEs, gshmem.init
  # starts gshmemrun --serve; torch.distributed joins torchrun's own store)
  gpu_run "py-example-tiny-torchrun-n$n" 300 torchrun --standalone --nproc_per_node "$n" \
    apps/dlrm/torch_example.py --config tiny --check
  # shellcheck disable=SC2086
  gpu_run "py-example-G-n$n" 900 "$L" -n "$n" python3 apps/dlrm/torch_example.py --config G \
    ${PY_G_ARGS:---iters 20 --warmup 3}
  cp "$OUT/logs/py-example-G-n$n.log" "$OUT/torch_example_G_n$n.txt"
  cat "$OUT/torch_example_G_n$n.txt"
done
exit $status
