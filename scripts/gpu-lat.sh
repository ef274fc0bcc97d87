#!/usr/bin/env bash
# gpu-lat.sh [BUILD_DIR]: the network path's small-put latency on a GPU
# machine with 2 GPUs, one call, under $OUT (or /tmp/gshmem-gpu-lat):
# gshmem-perf-dev-queue-latency (8 B put + quiet from a kernel, beside the
# doorbell round trip) over ofi/shm and ofi/tcp;ofi_rxm (P2P off), the
# providers' fi_pingpong round trip, the apply probe (what a target thread
# pays to make 8 B visible in GPU memory), and one traced run per provider
# (GSHMEM_TRACE; scripts/trace_stages.py: the median time between stages).
# GPU_LAT_LATENCY=0 leaves out the probe, latency and trace runs.
# GPU_LAT_RATE=1 adds the rate: gshmem-perf-dev-queue-rate (8 B putmem_nbi
# from 1 to 256 warps) on each path (ofi: GSHMEM_OFI_AM_BATCH 1 and 0)
# beside the provider's own message rate (gshmem-perf-ofi-rate, raw
# libfabric: 8 B, and 96 B, what one 8 B put takes alone in an active
# message, or 64 B where the provider injects no more: tcp;ofi_rxm).
# GPU_LAT_LITMUS=ROUNDS adds pe_litmus (fence, signal) on each path,
# GPU_LAT_TESTS=FILTER a Criterion run. With .gpu/base (a library and benchmark binaries of an earlier build,
# copied there before a change) the latency runs of that build alternate
# with this one's, in the same call: an A/B on the same machine.
# GPU_LAT_ALT="VAR=VALUE ..." adds a third set of latency runs, "alt":
# this build with those settings (a knob's A/B in the same call).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
FINAL=${OUT:-/tmp/gshmem-gpu-lat}
OUT=$(mktemp -d)   # everything here, then one archive in $FINAL
mkdir -p "$OUT/logs" "$OUT/csv" "$OUT/trace" "$FINAL"
. scripts/gpu-env.sh "$B"
export PATH=$PWD/.gpu/bin:$PATH
L="$B/tools/gshmemrun/gshmemrun"
status=0
NET=(GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=ofi FI_TCP_IFACE=lo)
ROUNDS=${GPU_LAT_ROUNDS:-2}
nvidia-smi -L | tee "$OUT/gpus.txt"
git rev-parse HEAD 2>/dev/null | sed 's/^/commit /' | tee -a "$OUT/gpus.txt"
if [ "${GPU_LAT_LATENCY:-1}" = 1 ]; then   # GPU_LAT_LATENCY=0: only the steps asked for below
gpu_run probe 60 "$B/apps/perf/device/gshmem-perf-dev-apply-probe" -b 8 -r 2000 -n 9
grep -v "^#" "$OUT/logs/probe.log" | sed 's/^/  probe /'
builds="new"
[ -x .gpu/base/gshmem-perf-dev-queue-latency ] && builds="base new"
read -r -a ALT <<<"${GPU_LAT_ALT:-}"
[ ${#ALT[@]} -gt 0 ] && builds="$builds alt"
# p2p: the engine with P2P peers (the program sets GSHMEM_DEVICE_QUEUE_ONLY)
for prov in p2p shm "tcp;ofi_rxm"; do
  n=${prov%%;*}
  penv=("${NET[@]}" "GSHMEM_OFI_PROVIDER=$prov")
  [ $prov = p2p ] && penv=(GSHMEM_HEAP=cuda)
  for r in $(seq 1 "$ROUNDS"); do
    for b in $builds; do
      bin=$B/apps/perf/device/gshmem-perf-dev-queue-latency lib=
      [ $b = base ] && bin=.gpu/base/gshmem-perf-dev-queue-latency lib=$PWD/.gpu/base:
      ph=-p
      [ $b = base ] && ph=
      aenv=()
      [ $b = alt ] && aenv=("${ALT[@]}")
      gpu_run "lat-$n-$b-$r" 90 env LD_LIBRARY_PATH="$lib$LD_LIBRARY_PATH" "${penv[@]}" "${aenv[@]}" \
        "$L" -n 2 "$bin" -b 8 -e 16 -n 30 -w 3 -r 100 $ph -o "$OUT/csv/lat-$n-$b-$r.csv"
      grep -v "^# [a-oq-z]" "$OUT/logs/lat-$n-$b-$r.log" | grep -v "^#  *size" | sed "s/^/  $n $b $r /"
    done
  done
  [ $prov != p2p ] && gpu_pingpong "$prov" "$n"
  gpu_run "trace-$n" 90 env "${penv[@]}" \
    GSHMEM_TRACE="$OUT/trace/$n" "$L" -n 2 "$B/apps/perf/device/gshmem-perf-dev-queue-latency" \
    -b 8 -e 8 -n 20 -w 3 -r 100 -q
  python3 scripts/trace_stages.py "$OUT/trace/$n" -o "$OUT/csv/stages-$n.csv" \
    | sed "s/^/  $n stages /" | tee "$OUT/logs/stages-$n.txt"
done
fi
if [ -n "${GPU_LAT_RATE:-}" ]; then   # messages per second, each path beside its provider
  for prov in p2p shm "tcp;ofi_rxm"; do
    n=${prov%%;*}
    penv=("${NET[@]}" "GSHMEM_OFI_PROVIDER=$prov")
    [ $prov = p2p ] && penv=(GSHMEM_HEAP=cuda)
    # ofi: the target's small-op batch on and off (GSHMEM_OFI_AM_BATCH);
    # with .gpu/base's queue-rate, that build too; same call
    for bt in 1 0 base; do
      [ $prov = p2p ] && [ $bt = 0 ] && continue
      bin=$B/apps/perf/device/gshmem-perf-dev-queue-rate lib=
      if [ $bt = base ]; then
        [ -x .gpu/base/gshmem-perf-dev-queue-rate ] || continue
        bin=.gpu/base/gshmem-perf-dev-queue-rate lib=$PWD/.gpu/base:
      fi
      gpu_run "rate-$n-b$bt" 120 env LD_LIBRARY_PATH="$lib$LD_LIBRARY_PATH" "${penv[@]}" \
        GSHMEM_OFI_AM_BATCH=${bt/base/1} "$L" -n 2 "$bin" -b 8 -e 8 -W 256 -p 256 -n 20 -w 2 \
        -o "$OUT/csv/rate-$n-b$bt.csv"
      grep -v "^#" "$OUT/logs/rate-$n-b$bt.log" | sed "s/^/  $n batch=$bt queue rate /"
    done
    [ $prov = p2p ] && continue
    for s in 8 $([ $n = shm ] && echo 96 || echo 64); do
      gpu_run "ofi-rate-$n-$s" 60 env FI_TCP_IFACE=lo \
        "$B/apps/perf/host/gshmem-perf-ofi-rate" -p "$prov" -s $s -n $([ $n = shm ] && echo 1000000 || echo 200000) -W 256 -r 5
      tail -1 "$OUT/logs/ofi-rate-$n-$s.log" | sed "s/^/  $n provider rate /"
      cp "$OUT/logs/ofi-rate-$n-$s.log" "$OUT/csv/ofi-rate-$n-$s.csv"
    done
  done
fi
if [ -n "${GPU_LAT_LITMUS:-}" ]; then   # data never after its flag, on each path
  for prov in p2p shm "tcp;ofi_rxm"; do
    n=${prov%%;*}
    penv=("${NET[@]}" "GSHMEM_OFI_PROVIDER=$prov")
    [ $prov = p2p ] && penv=(GSHMEM_HEAP=cuda GSHMEM_DEVICE_QUEUE_ONLY=1)
    for v in fence signal; do
      gpu_run "litmus-$n-$v" 200 env "${penv[@]}" "$L" -n 2 "$B/tests/pe/pe_litmus" $v \
        "$GPU_LAT_LITMUS"
      grep -h "violations" "$OUT/logs/litmus-$n-$v.log" | sed "s/^/  $n $v /"
    done
  done
fi
if [ -n "${GPU_LAT_TESTS:-}" ]; then   # a Criterion filter
  gpu_run tests 400 "$B/tests/gshmem-tests" --verbose --jobs 1 --filter "$GPU_LAT_TESTS"
  grep -E "Synthesis|FAIL" "$OUT/logs/tests.log"
fi
tar -czf "$FINAL/gpu-lat.tgz" -C "$OUT" logs csv trace gpus.txt 2>/dev/null
exit $status
