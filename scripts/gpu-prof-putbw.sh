#!/usr/bin/env bash
# gpu-prof-putbw.sh BUILD_DIR: the one-block put bandwidth kernel of gshmem
# and of NVSHMEM side by side under Nsight Compute, for issue 16 item 2
# (one block at 4-64 KiB: 0.56-0.73x NVSHMEM). Builds NVSHMEM's programs
# through scripts/perf-device.sh (ONLY=put-bw, which also times both),
# then profiles bw_kernel's one-block launch at GPU_PROF_SIZE (4K) in each
# (ncu: launch stats, warp states, instruction and scheduler statistics,
# source counters) and dumps both kernels' SASS (cuobjdump). Output:
# $OUT/prof.tgz (or under /tmp/gshmem-gpu-prof).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
FINAL=${OUT:-/tmp/gshmem-gpu-prof}
OUT=$(mktemp -d)
mkdir -p "$OUT/logs" "$FINAL"
. scripts/gpu-env.sh "$B"
case $B in /*) ;; *) B=$PWD/$B ;; esac
S=${GPU_PROF_SIZE:-4K}
NVB=/tmp/build-nvshmem
BUILD=$B NVBUILD=$NVB TIMEOUT=120 ONLY=put-bw bash scripts/perf-device.sh "$OUT/perf" >"$OUT/logs/perf.log" 2>&1
tail -3 "$OUT/logs/perf.log"
sections=(--section LaunchStats --section WarpStateStats --section InstructionStats
          --section SchedulerStats --section SourceCounters --section SpeedOfLight)
flags=(-b "$S" -e "$S" -n 1 -w 0 -c 0)
timeout 200 ncu --target-processes all -k regex:bw_kernel -c 1 "${sections[@]}" \
  env GSHMEM_HEAP=cuda "$B/tools/gshmemrun/gshmemrun" -n 2 \
  "$B/apps/perf/device/gshmem-perf-dev-put-bw" "${flags[@]}" >"$OUT/ncu-gshmem.txt" 2>&1
echo "ncu gshmem: status $?"
LD_LIBRARY_PATH=$gpu_env_nvshmem/lib:$LD_LIBRARY_PATH timeout 200 ncu --target-processes all \
  -k regex:bw_kernel -c 1 "${sections[@]}" \
  "${gpu_nvshmem_mpirun[@]}" "$NVB/nvshmem-perf-put-bw" "${flags[@]}" >"$OUT/ncu-nvshmem.txt" 2>&1
echo "ncu nvshmem: status $?"
cuobjdump -sass "$B/apps/perf/device/gshmem-perf-dev-put-bw" >"$OUT/sass-gshmem.txt" 2>&1
cuobjdump -sass "$NVB/nvshmem-perf-put-bw" >"$OUT/sass-nvshmem.txt" 2>&1
grep -h "Duration\|Executed Instructions \|Registers Per\|Warp Cycles Per Issued" \
  "$OUT"/ncu-*.txt | head -20
tar -czf "$FINAL/prof.tgz" -C "$OUT" .
