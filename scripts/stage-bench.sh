#!/usr/bin/env bash
# Runs on a GPU machine over a build made on the development machine and
# carried along (see README "Tile-granular synchronization"):
#   scripts/stage-bench.sh [BUILD_DIR] [M list]
# 1. the stage tests of the Criterion suite (CPU maps and the GPU tests:
#    poisoned producer outputs, every policy and launch mode, producer on
#    another PE over P2P and the queue path, the wait timeout);
# 2. gshmem-stage-mlp for each M (one process each, so that a failing size
#    cannot take the others with it), raw rows appended to mlp_raw.csv;
# 3. apps/stage/dlrm_interact when it was built;
# 4. (only when named) profile: Nsight Compute on the staged kernels in
#    stream order (serial modes, 64x128 tiles, M 1024) of this build and of
#    $B/apps/stage/gshmem-stage-mlp-prev when present (an earlier build to
#    compare), and on GEMM1 alone at M 256 (one block per SM) and 1024;
#    dev2: the cross-PE stage tests and pe_stage on a machine of 2 GPUs, with
#    the device each PE ran on.
# STAGE_ONLY="tests mlp dlrm profile dev2" picks parts (default: tests mlp
# dlrm). Everything goes to $OUT (or /tmp/gshmem-stage-out): logs in one
# archive.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-stage}
MS=${2:-"1 32 128 256 384 512 768 1024 1536 2048"}
OUT=${OUT:-/tmp/gshmem-stage-out}
ONLY=${STAGE_ONLY:-all}
part() {
  case " $ONLY " in *" $1 "*) return 0 ;; esac
  [ "$ONLY" = all ] && [ "$1" != profile ] && [ "$1" != dev2 ]
}
mkdir -p "$OUT/logs"
# Paths (the carried build's source link, Criterion, NCCL) and the machine's
# rules; the MLP's cuBLAS reference also needs cuBLAS.
. scripts/gpu-env.sh "$B"
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64${gpu_env_py:+:$gpu_env_py/nvidia/cublas/lib}
status=0
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } \
  >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

part tests && echo "== stage tests =="
part tests && for f in 'stage/*' 'stage_gpu/*'; do
  timeout 400 "$B/tests/gshmem-tests" --jobs 2 --verbose --filter "$f" >>"$OUT/tests.log" 2>&1 ||
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
part mlp && python3 apps/stage/stage_table.py "$OUT/mlp_raw.csv" >"$OUT/table.md" && cat "$OUT/table.md"

if part profile; then
  echo "== Nsight Compute =="
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  prof() {   # prof NAME NCU-ARGS... -- PROGRAM ARGS...: report in logs/ncu_NAME.txt
    local name=$1; shift
    if timeout 150 "$ncu" --clock-control none --kernel-name-base mangled \
         --section SpeedOfLight --section WarpStateStats --section Occupancy \
         --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis \
         "$@" >"$OUT/logs/ncu_$name.txt" 2>&1; then echo "ncu $name: done"; else
      echo "ncu $name: FAILED (status $?)"; tail -5 "$OUT/logs/ncu_$name.txt"; fi
    grep -E "stage_gemm_kernel|^ +Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Th|Memory Th|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" \
      "$OUT/logs/ncu_$name.txt" | sed -E 's/_Z17stage_gemm_kernelI14stage_gemm_cfgI(.*)EEv15stage_gemm_args.*/\1/; s/^/  /'
  }
  mlp=$B/apps/stage/gshmem-stage-mlp
  # first launches of SYNC 3/4/5 kernels: serial_counter, serial_post, serial_row
  prof serial -k regex:'ELi[345]EEv' -c 6 "$mlp" -m 1024 -t 64x128x64s3 -n 20 -w 0
  [ -x "$mlp-prev" ] && prof serial_prev -k regex:'ELi[345]EEv' -c 4 "$mlp-prev" -m 1024 \
    -t 64x128x64s3 -n 20 -w 0
  for m in 256 1024; do   # the reference (stream) run's GEMM1
    prof "gemm1_M$m" -k regex:'Lb1ELi0EEv' -c 1 "$mlp" -m $m -t 128x128x64s3 -n 20 -w 0
  done
fi

if part dev2; then
  echo "== cross-PE stage tests ($(nvidia-smi -L | grep -c '^GPU') GPUs) =="
  timeout 150 "$B/tests/gshmem-tests" --jobs 1 --verbose \
    --filter 'stage_gpu/remote_*' >"$OUT/tests_dev2.log" 2>&1 || status=1
  grep -E "stage_gpu::.*(PASS|FAIL|CRASH)|Synthesis" "$OUT/tests_dev2.log" | sed 's/^/  /'
  for args in "remote tile 100" "remote row 100 ahead"; do
    env GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p GSHMEM_TIMEOUT=30 timeout 60 \
      "$B/tools/gshmemrun/gshmemrun" -n 2 "$B/tests/pe/pe_stage" $args \
      >>"$OUT/tests_dev2.log" 2>&1 || status=1
  done
  GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p GSHMEM_TIMEOUT=30 GSHMEM_DEVICE_QUEUE_ONLY=1 timeout 60 \
    "$B/tools/gshmemrun/gshmemrun" -n 2 \
    "$B/tests/pe/pe_stage" remote strided 30 >>"$OUT/tests_dev2.log" 2>&1 || status=1
  grep -E "pe_stage: (remote|OK)" "$OUT/tests_dev2.log" | sed 's/^/  /'
fi

if part dlrm && [ -x "$B/apps/stage/gshmem-stage-dlrm" ]; then
  echo "== DLRM interaction =="
  timeout 300 bash apps/stage/dlrm_bench.sh "$B" "$OUT" >"$OUT/dlrm.log" 2>&1 || status=1
  tail -30 "$OUT/dlrm.log"
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
exit $status
