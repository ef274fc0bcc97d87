#!/usr/bin/env bash
# gpu-team.sh [BUILD_DIR]: the device team programs (pe_dev_team_coll,
# pe_dev_team_stream) run directly under gshmemrun with a short time limit
# each (GPU_TEAM_TIMEOUT, default 60 s; the Criterion tests gpu_device/team_*
# allow 300), so that a hang costs a minute and its log shows how far each
# PE got (the programs print a line per finished phase). Cases: P2P at 2
# and 4 PEs (4 only with 4 GPUs), the queue path (GSHMEM_DEVICE_QUEUE_ONLY=1)
# and ofi/shm with P2P off at 2 PEs; GPU_TEAM_CASES picks some by name.
# Off P2P the programs trace each call (PE_DEV_TRACE, GPU_TEAM_TRACE=0 turns
# it off), and a case still running 12 s before its limit gets its PEs'
# stacks and running kernels from cuda-gdb ($OUT/logs/CASE-stack-PID.log).
# Logs under $OUT/logs (or /tmp/gshmem-gpu-team), archived in
# $OUT/gpu-team.tgz; PASS/FAIL per case on stdout.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
OUT=${OUT:-/tmp/gshmem-gpu-team}
mkdir -p "$OUT/logs"
. scripts/gpu-env.sh "$B"
L="$B/tools/gshmemrun/gshmemrun"
T=${GPU_TEAM_TIMEOUT:-60}
status=0
ngpu=$(nvidia-smi -L | grep -c '^GPU')
P2P=(GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p)
QUEUE=("${P2P[@]}" GSHMEM_DEVICE_QUEUE_ONLY=1)
OFI=(GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi GSHMEM_OFI_PROVIDER=shm)
cases=${GPU_TEAM_CASES:-coll-p2p-n2 coll-p2p-n4 stream-p2p-n2 stream-p2p-n4 coll-queue-n2 stream-queue-n2 coll-ofi-n2 coll-queue-n4}
for c in $cases; do
  IFS=- read -r prog path n <<<"$c"
  n=${n#n}
  [ "$n" -le "$ngpu" ] || { echo "skip $c ($n PEs, $ngpu GPUs)"; continue; }
  case $path in p2p) envs=("${P2P[@]}") ;; queue) envs=("${QUEUE[@]}") ;; *) envs=("${OFI[@]}") ;; esac
  [ "$path" = p2p ] || envs+=(PE_DEV_TRACE="${GPU_TEAM_TRACE:-1}")
  # a hang's stacks: every PE's host threads and the GPU's kernels, shortly
  # before the launcher's limit (cuda-gdb attaches; nothing when it is absent)
  ( sleep $((T - 12)); for pid in $(pgrep -f "tests/pe/pe_dev_team_$prog" | grep -v "^$$\$"); do
      command -v cuda-gdb >/dev/null || break
      timeout 10 cuda-gdb -p "$pid" -batch -ex "info cuda kernels" -ex "thread apply all bt 12" \
        >"$OUT/logs/$c-stack-$pid.log" 2>&1
    done ) &
  watcher=$!
  gpu_run "$c" $((T + 10)) env "${envs[@]}" "$L" -n "$n" --timeout "$T" "$B/tests/pe/pe_dev_team_$prog"
  kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
  grep -c ": OK (PE" "$OUT/logs/$c.log" | sed "s/^/  OK lines: /"
  grep -h "done$" "$OUT/logs/$c.log" | tail -"$n" | sed 's/^/  last: /'
done
tar -czf "$OUT/gpu-team.tgz" -C "$OUT" logs
exit $status
