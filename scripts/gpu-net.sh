#!/usr/bin/env bash
# gpu-net.sh [BUILD_DIR]: the network path (device queue -> engine -> ofi
# active messages over tcp;ofi_rxm on loopback, P2P off) on a GPU machine
# with 2 GPUs, one call, logs and CSVs under $OUT (or /tmp/gshmem-gpu-net),
# archived in $OUT/gpu-net.tgz (the device tool brings back 8 files):
#   tests  the ofi tests on CUDA and host heaps (GPU_NET_TEST_FILTER, default
#          ofi_cuda/* ofi_am_host/* queue/*, then the DLRM network-path tests)
#   litmus pe_litmus fence and signal over this path (data never after its
#          flag; GPU_NET_LITMUS_ROUNDS x 128 blocks, default 2^20)
#   bw     queue_bw: gshmem-perf-dev-put-bw over the network path with the
#          active messages as they are ("new"), on one rail ("rail1":
#          GSHMEM_OFI_AM_RAILS=1, the 2026-11-25 session-4 path) and as they were ("old":
#          GSHMEM_OFI_AM_COALESCE=0, 64 KiB messages, rxm's default eager
#          size), then NCCL's socket transport on the same GPUs
#          (scripts/nccl_sock_bw.py), one direction, 4 KiB .. 256 MiB (GPU_NET_BW_MAX)
#   lat    8 B put + quiet from a kernel (queue-latency: beside the doorbell
#          round trip) over ofi/tcp;ofi_rxm and ofi/shm, and fi_pingpong's
#          8 B round trip on each provider (.gpu/bin, gpu-pack.sh)
#   dlrm   DLRM set N at P = GPU_NET_DLRM_P (default 2; scripts/dlrm-bench.sh
#          N2 / N4): the whole grid
#          new, its four corners on one rail (rail1); GPU_NET_MODES picks the
#          modes of bw and dlrm (default "new rail1"; "old" also works);
#          DLRM_N_ITERS (default 5) iterations
#   prof   one N case at P = GPU_NET_DLRM_P with the engine's and the ofi path's INFO lines
#          (messages, bytes per message, copies, waits), NCCL on sockets
#   cpu    per-thread CPU use (scripts/thread_cpu.py) of that N case and of
#          host-heap bidirectional put_bw over the same path; NCCL's
#          socket all-to-all with its default and with 4 threads x 4 sockets
#   knobs  that N case and host-heap bidirectional put_bw over the same path
#          (GSHMEM_OFI_AM=1, no GPU in the loop) under settings worth trying
#          (GPU_NET_KNOBS replaces the list)
# GPU_NET_STEPS picks some (default "tests litmus bw dlrm prof knobs"); each step has a
# time limit.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
OUT=${OUT:-/tmp/gshmem-gpu-net}
mkdir -p "$OUT/logs" "$OUT/csv"
. scripts/gpu-env.sh "$B"
L="$B/tools/gshmemrun/gshmemrun"
status=0
steps=" ${GPU_NET_STEPS:-tests litmus bw dlrm prof knobs} "
want() { [[ $steps == *" $1 "* ]]; }
NET=(GSHMEM_HEAP=cuda "${gpu_net_env[@]}")
OLD=(GSHMEM_OFI_AM_COALESCE=0 GSHMEM_OFI_AM_CHUNK=64K FI_OFI_RXM_BUFFER_SIZE=16384
     GSHMEM_OFI_AM_RAILS=1)
RAIL1=(GSHMEM_OFI_AM_RAILS=1)
MODES=${GPU_NET_MODES:-new rail1}
NCCL_SOCK=(NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo)
DP=${GPU_NET_DLRM_P:-2}   # P of the dlrm and prof steps (2 or 4)
NCASE=(--config N --batch 2048 --tables-per-pe 128 --iters 5 --warmup 1)
nvidia-smi -L | tee "$OUT/gpus.txt"
git rev-parse HEAD 2>/dev/null | sed 's/^/commit /' | tee -a "$OUT/gpus.txt"

if want tests; then
  gpu_run tests "${GPU_NET_TEST_TIMEOUT:-300}" "$B/tests/gshmem-tests" --verbose --jobs 1 \
    --filter "${GPU_NET_TEST_FILTER:-@(ofi_cuda|ofi_am_host|queue)/*}"
  grep -E "Synthesis" "$OUT/logs/tests.log"
  gpu_run tests-dlrm 200 "$B/tests/gshmem-tests" --verbose --jobs 1 --filter 'dlrm/*network*'
  grep -E "Synthesis" "$OUT/logs/tests-dlrm.log"
fi
if want litmus; then   # data before flag over this path (fence and signal variants)
  for v in fence signal; do
    gpu_run "litmus-ofi-$v-n2" 200 env "${NET[@]}" "$L" -n 2 "$B/tests/pe/pe_litmus" $v \
      "${GPU_NET_LITMUS_ROUNDS:-8192}"
  done
  grep -h "violations" "$OUT"/logs/litmus-*.log | sed 's/^/  /'
fi
if want bw; then
  for mode in $MODES; do
    envs=("${NET[@]}")
    [ $mode = old ] && envs+=("${OLD[@]}")
    [ $mode = rail1 ] && envs+=("${RAIL1[@]}")
    gpu_run "bw-$mode" 240 env "${envs[@]}" "$L" -n 2 "$B/apps/perf/device/gshmem-perf-dev-put-bw" \
      -b 4K -e "${GPU_NET_BW_MAX:-256M}" -f 4 -n 20 -w 1 -o "$OUT/csv/queue-bw-$mode.csv"
    grep -v "^#" "$OUT/logs/bw-$mode.log" | sed "s/^/  $mode /" | head -20
  done
  gpu_run bw-nccl-sockets 240 python3 scripts/nccl_sock_bw.py -b 4K -e "${GPU_NET_BW_MAX:-256M}" -n 20 -w 3 \
    -o "$OUT/csv/nccl-sockets-bw.csv"
  sed 's/^/  nccl /' "$OUT/csv/nccl-sockets-bw.csv" 2>/dev/null
fi
if want lat; then   # 8 B put + quiet from a kernel over this path (ofi/tcp and ofi/shm)
  export PATH=$PWD/.gpu/bin:$PATH
  for prov in "tcp;ofi_rxm" shm; do
    n=${prov%%;*}
    gpu_run "lat-$n" 120 env "${NET[@]}" "GSHMEM_OFI_PROVIDER=$prov" "$L" -n 2 \
      "$B/apps/perf/device/gshmem-perf-dev-queue-latency" -b 8 -e 8 -n 30 -w 3 -r 100 \
      -o "$OUT/csv/queue-lat-$n.csv"
    grep -v "^#" "$OUT/logs/lat-$n.log" | sed "s/^/  $n /"
    gpu_pingpong "$prov" "$n"   # the provider's own round trip
  done
fi
if want dlrm; then
  for mode in $MODES; do
    envs=(DLRM_N_ITERS=${DLRM_N_ITERS:-5})
    # the other modes on the corner cases only
    [ $mode = old ] && envs+=("${OLD[@]}")
    [ $mode = rail1 ] && envs+=("${RAIL1[@]}")
    [ $mode != new ] && envs+=(DLRM_N_BATCH=512,8192 DLRM_N_TPP=32,256)
    env "${envs[@]}" OUT="$OUT/dlrm-$mode" DLRM_DEADLINE=${DLRM_DEADLINE:-200} \
      bash scripts/dlrm-bench.sh "$B" "N$DP" 2>&1 | tee "$OUT/logs/dlrm-$mode.txt" | sed "s/^/  $mode /"
    grep -q "^FAIL" "$OUT/logs/dlrm-$mode.txt" && status=1
  done
fi
if want prof; then
  gpu_run "prof-n$DP" 120 env "${NET[@]}" "${NCCL_SOCK[@]}" GSHMEM_DEBUG=INFO \
    GSHMEM_DEBUG_SUBSYS=TRANSPORT,PROXY "$L" -n "$DP" "$B/apps/dlrm/gshmem-dlrm" "${NCASE[@]}"
  grep -h "^N \|active messages: PE\|engine stopped" "$OUT/logs/prof-n$DP.log" | sed 's/^/  /'
fi
if want cpu; then   # which thread is the limit
  gpu_run cpu-dlrm 120 python3 scripts/thread_cpu.py -o "$OUT/csv/cpu-dlrm.csv" -- \
    env "${NET[@]}" "${NCCL_SOCK[@]}" "$L" -n 2 "$B/apps/dlrm/gshmem-dlrm" "${NCASE[@]}"
  grep -h "^N \|^[0-9]*,[0-9]*," "$OUT/logs/cpu-dlrm.log" | sed 's/^/  dlrm /'
  gpu_run cpu-hostbw 90 python3 scripts/thread_cpu.py -o "$OUT/csv/cpu-hostbw.csv" -- \
    env GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_AM=1 "GSHMEM_OFI_PROVIDER=tcp;ofi_rxm" \
    FI_TCP_IFACE=lo "$L" -n 2 "$B/apps/perf/host/gshmem-perf-put-bw" -b 256K -e 4M -f 4 -d -n 20
  grep -v "^# [a-z]*-perf\|^# transport\|^# sizes" "$OUT/logs/cpu-hostbw.log" | sed 's/^/  hostbw /'
  for nt in default 4x4; do
    envs=()
    [ $nt = 4x4 ] && envs=(NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=4)
    gpu_run "cpu-nccl-$nt" 150 env "${envs[@]}" python3 scripts/thread_cpu.py \
      -o "$OUT/csv/cpu-nccl-$nt.csv" -- python3 scripts/nccl_sock_bw.py -b 1M -e 64M -n 10 -w 2 \
      -o "$OUT/csv/nccl-sockets-$nt.csv"
    sed "s/^/  nccl $nt /" "$OUT/csv/nccl-sockets-$nt.csv" 2>/dev/null
    grep "^[0-9]*,[0-9]*," "$OUT/logs/cpu-nccl-$nt.log" | head -8 | sed "s/^/  nccl $nt /"
  done
fi
if want knobs; then
  i=0
  # GPU_NET_KNOBS: the settings to try instead of these (space-separated VAR=VALUE)
  for k in ${GPU_NET_KNOBS:-X=0 GSHMEM_OFI_AM_CHUNK=256K GSHMEM_OFI_AM_CHUNK=2M \
             GSHMEM_OFI_AM_CHUNK=4M}; do
    i=$((i + 1))
    gpu_run "knob$i-dlrm" 90 env "${NET[@]}" "${NCCL_SOCK[@]}" $k "$L" -n 2 \
      "$B/apps/dlrm/gshmem-dlrm" "${NCASE[@]}"
    grep -h "^N " "$OUT/logs/knob$i-dlrm.log" | sed "s/^/  [$k] /"
    gpu_run "knob$i-hostbw" 90 env GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_AM=1 \
      "GSHMEM_OFI_PROVIDER=tcp;ofi_rxm" $k "$L" -n 2 "$B/apps/perf/host/gshmem-perf-put-bw" \
      -b 256K -e 4M -f 4 -d -n 20
    grep -v "^#" "$OUT/logs/knob$i-hostbw.log" | sed "s/^/  [$k] host bidir /"
  done
fi
tar -czf "$OUT/gpu-net.tgz" -C "$OUT" logs csv $(cd "$OUT" && ls -d dlrm-* 2>/dev/null) &&
  rm -rf "$OUT/logs" "$OUT/csv" "$OUT"/dlrm-*
exit $status
