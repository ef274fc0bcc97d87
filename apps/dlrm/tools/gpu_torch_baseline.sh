#!/usr/bin/env bash
# gpu_torch_baseline.sh: one device call (4 GPUs) for apps/dlrm/torch_baseline.py:
# tiny with the full check (T=16, even split) and an uneven split (T=10 over
# 4 PEs), then the sets in TORCH_SETS (default "G64": one G point, 64 tables
# per PE, B=4096; "W S G" runs BENCHMARKS.md's whole sets at P). Logs and
# CSV under $OUT. TORCH_ITERS (default 20) timed iterations per case.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
OUT=${OUT:-/tmp/dlrm-torch-out}
mkdir -p "$OUT"
P=${P:-4}
nvidia-smi -L | tee "$OUT/gpus.txt"
TR="torchrun"
command -v torchrun >/dev/null || TR="python3 -m torch.distributed.run"
rc=0
$TR --nproc-per-node "$P" apps/dlrm/torch_baseline.py --config tiny --tables 16,10 \
  --check --csv "$OUT/torch.csv" 2>&1 | tee "$OUT/tiny.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
for set in ${TORCH_SETS:-G64}; do
  case $set in
  G64) args=(--config G --tables-per-pe 64 --batch 4096) ;;
  *) args=(--config "$set") ;;
  esac
  $TR --nproc-per-node "$P" apps/dlrm/torch_baseline.py "${args[@]}" \
    --iters "${TORCH_ITERS:-20}" --warmup 5 --csv "$OUT/torch.csv" 2>&1 | tee "$OUT/$set.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
cat "$OUT/torch.csv"
exit $rc
