#!/usr/bin/env bash
# gpu-queue.sh [BUILD_DIR]: the queue path's checks and benchmarks on the GPU
# machine (issue "Queue path at doorbell speed"), one call, logs under $OUT
# (or /tmp/gshmem-gpu-queue):
# 1. the Criterion tests of the queue path (GSHMEM_TEST_FILTER, default
#    the pe_queue and queue suites), 2. litmus over the queue path (fence
#    and signal, 8192 rounds x 128 blocks = 2^20 block-rounds), 3. the
#    engine's profile (pe_queue perf with the engine's INFO line), 4.
#    scripts/queue-bench.sh, 5. compute-sanitizer (memcheck, racecheck,
#    synccheck) on pe_queue's modes over both queue paths
#    (GPU_QUEUE_SAN_TOOLS, _MODES, _PATHS, _TIMEOUT). GPU_QUEUE_STEPS picks some (default "tests litmus profile
#    bench sanitizer"; the whole set can pass the device's 10 minutes per
#    call on one GPU, so split it). Every step has a time limit.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
OUT=${OUT:-/tmp/gshmem-gpu-queue}
mkdir -p "$OUT/logs"
. scripts/gpu-env.sh "$B"
L="$B/tools/gshmemrun/gshmemrun"
status=0
steps=" ${GPU_QUEUE_STEPS:-tests litmus profile bench sanitizer} "
want() { [[ $steps == *" $1 "* ]]; }
nvidia-smi -L | tee "$OUT/gpus.txt"
want tests && gpu_run tests "${GPU_QUEUE_TEST_TIMEOUT:-300}" "$B/tests/gshmem-tests" --verbose --jobs 1 \
  --filter "${GSHMEM_TEST_FILTER:-queue/*}"
want tests && grep -E "Synthesis" "$OUT/logs/tests.log"
want litmus && for v in fence signal; do
  gpu_run "litmus-queue-$v-n2" 150 env GSHMEM_HEAP=cuda GSHMEM_DEVICE_QUEUE_ONLY=1 \
    "$L" -n 2 "$B/tests/pe/pe_litmus" $v 8192
done
want litmus && grep -h "violations" "$OUT"/logs/litmus-*.log | sed 's/^/  /'
# the engine's profile (its INFO line at stop: entries, passes, ns per
# entry, quiets and their time) under the latency loop and pe_queue's perf line
want profile && for batch in 1 0; do
  gpu_run "profile-latency-batch$batch" 120 env GSHMEM_P2P_BATCH=$batch GSHMEM_DEBUG=INFO \
    GSHMEM_DEBUG_SUBSYS=PROXY "$L" -n 2 "$B/apps/perf/device/gshmem-perf-dev-queue-latency" \
    -b 8 -e 8 -n 30 -w 3 -r 200
  gpu_run "profile-ops-batch$batch" 120 env GSHMEM_HEAP=cuda GSHMEM_DEVICE_QUEUE_ONLY=1 \
    GSHMEM_P2P_BATCH=$batch GSHMEM_DEBUG=INFO GSHMEM_DEBUG_SUBSYS=PROXY \
    "$L" -n 2 "$B/tests/pe/pe_queue" ops
  grep -h "pe_queue: perf\|engine stopped\|^ *8 " "$OUT"/logs/profile-*-batch$batch.log | sed 's/^/  /'
done
# host producers over ofi/tcp;ofi_rxm: the engine's profile, and whether
# naps matter (the progress threads never nap with a 10 s spin window)
want profile && for spin in 1000 10000000; do
  gpu_run "profile-host-tcp-spin$spin" 120 env GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi \
    GSHMEM_OFI_PROVIDER='tcp;ofi_rxm' GSHMEM_IDLE_SPIN_US=$spin GSHMEM_DEBUG=INFO \
    GSHMEM_DEBUG_SUBSYS=PROXY "$L" -n 2 "$B/apps/perf/host/gshmem-perf-queue-host"
  grep -h "engine stopped\|put_quiet\|rate" "$OUT/logs/profile-host-tcp-spin$spin.log" | sed 's/^/  /'
done
if want bench; then
  BUILD=$B TIMEOUT=120 gpu_run queue-bench 450 bash scripts/queue-bench.sh "$OUT/queue-bench"
  cat "$OUT/queue-bench/summary.md" 2>/dev/null
fi
if want sanitizer; then
  # compute-sanitizer on the queue tests' programs, every PE under the tool:
  # pe_queue's drain (kernels post, the host drains), bad (a malformed
  # entry) and rma (puts, gets, back-pressure from kernels that wait on the
  # engine) over the engine with P2P peers and over ofi/shm. The tool runs
  # one kernel at a time, so the engine's and the ofi target's kernels (the
  # small-op batches, AMO kernels) cannot run while a user kernel waits for
  # them: the batches are off here (copies instead) and ops' AMOs are not
  # run (GPU_QUEUE_SAN_MODES=ops hangs under the tool, not without it).
  # amo1 (PE 0's atomics to PE 1 alone, applied by kernels in PE 1's
  # process while no user kernel runs there) runs over ofi only: with P2P
  # peers PE 0's own engine would launch them behind PE 0's waiting kernel.
  ST=${GPU_QUEUE_SAN_TIMEOUT:-240}
  compute-sanitizer --version | tail -1 | sed 's/^/  /'
  QP2P=(GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p GSHMEM_DEVICE_QUEUE_ONLY=1 GSHMEM_P2P_BATCH=0)
  QOFI=(GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi GSHMEM_OFI_PROVIDER=shm
        GSHMEM_OFI_AM_BATCH=0)
  for tool in ${GPU_QUEUE_SAN_TOOLS:-memcheck racecheck synccheck}; do
    for mode in ${GPU_QUEUE_SAN_MODES:-drain bad rma amo1}; do
      for path in ${GPU_QUEUE_SAN_PATHS:-p2p ofi}; do
        [ $mode = amo1 ] && [ $path = p2p ] && continue
        penv=("${QP2P[@]}")
        [ $path = ofi ] && penv=("${QOFI[@]}")
        gpu_run "san-$tool-$mode-$path" "$ST" env "${penv[@]}" GSHMEM_SYMMETRIC_SIZE=16M \
          GSHMEM_TIMEOUT=$ST "$L" -n 2 --timeout "$ST" compute-sanitizer --tool $tool \
          --error-exitcode 9 "$B/tests/pe/pe_queue" $mode
        grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|pe_queue: OK" \
          "$OUT/logs/san-$tool-$mode-$path.log" | sort | uniq -c | sed "s/^/  $tool $mode $path /"
      done
    done
  done
fi
# the device tool brings back at most 8 files: one archive
tar -czf "$OUT/gpu-queue.tgz" -C "$OUT" logs $(cd "$OUT" && ls -d queue-bench 2>/dev/null) &&
  rm -rf "$OUT/logs" "$OUT/queue-bench"
exit $status
