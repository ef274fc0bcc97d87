#!/usr/bin/env bash
# The fused DLRM benchmark sets of BENCHMARKS.md section 2 on the GPU machine
# (see ../shared/GPU_MACHINE.md), over a build made on the development
# machine and carried along:
#   scripts/dlrm-bench.sh BUILD_DIR STEP...
# Steps (run in the order given; each is one or more gshmem-dlrm launches
# under a time limit, its table rows echoed, its CSV and log kept):
#   check    tiny --check on 1, 2 and 4 GPUs (all modes, fp64 reference),
#            fp16 and oblivious variants, a G case with --check at P = 4,
#            the queue path (P2P off) at P = 2
#   W S      weak / strong scaling sets at P = 1..4 (W1..W4, S1..S4 pick one P;
#            P = 3 runs a global batch of 16383, the largest multiple of 3)
#   G        the 20 grid cases at P = 4 (DLRM_P; at most the GPUs present)
#   N2 N4    the grid over the network path at P = 2 / 4 (gshmem: P2P off,
#            queue path over libfabric tcp on loopback; NCCL: sockets on lo);
#            DLRM_N_BATCH / DLRM_N_TPP / DLRM_N_ITERS prune it
#   sweep    one G case, slice sizes 4 .. 256
#   order    work order table vs slice on W and one G case (P = 4)
#   items    samples per work item (--item-rows) on one G case, W and S
#   trace    --trace of one G case (raw CSV per the DLRM contract)
#   prof     profilers: ncu on the baseline's embedding kernel and on the
#            fused kernel (W at P = 1: DRAM throughput against peak), nsys
#            over a small N case at P = 2 (where the queue path's time goes)
#   smoke    tiny on 2 PEs (tries the script anywhere, CPU PEs included)
# Results in $OUT (or /tmp/dlrm-out): summary.md (every CSV as a markdown
# table) and dlrm-results.tgz (the CSVs, the trace, the logs, gpus.txt).
# Set DLRM_ITERS to change the iteration count (default 20, the
# BENCHMARKS.md minimum) and DLRM_DEADLINE (seconds) to end the whole run
# in time: a launch gets at most what is left, none when under 20 s.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:?usage: scripts/dlrm-bench.sh BUILD_DIR STEP...}
shift
. scripts/gpu-env.sh "$B"
O=${OUT:-/tmp/dlrm-out}
R=$(mktemp -d /tmp/dlrm-bench.XXXXXX)
mkdir -p "$O" "$R/logs"
L="$B/tools/gshmemrun/gshmemrun"
A="$B/apps/dlrm/gshmem-dlrm"
IT=${DLRM_ITERS:-20}
DEADLINE=${DLRM_DEADLINE:-86400}
export GSHMEM_TIMEOUT=${GSHMEM_TIMEOUT:-30}   # bounded waits (bootstrap, slices)
NET_ENV=("${gpu_net_env[@]}" NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1
         NCCL_SOCKET_IFNAME=lo)
# GPUs present (P > NGPU is skipped); DLRM_P: the P of the G, order, sweep
# and trace steps (default: 4, or every GPU when there are fewer)
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${NGPU:-0}" -gt 0 ] || NGPU=4   # CPU PEs (smoke)
PP=${DLRM_P:-$((NGPU < 4 ? NGPU : 4))}
status=0

# one NAME LIMIT_S NPES [VAR=VALUE...] -- ARGS...: one launch, rows to stdout
one() {
  local name=$1 limit=$2 n=$3 envs=()
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  if [ "$n" -gt "$NGPU" ]; then echo "skip $name ($n PEs, $NGPU GPUs)"; return; fi
  local t0=$SECONDS rc=0 left=$((DEADLINE - SECONDS - 5))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 20 ]; then echo "skip $name (deadline)"; return; fi
  timeout "$limit" env "${envs[@]}" "$L" -n "$n" --timeout "$limit" "$A" "$@" \
    --csv "$R/$name.csv" >"$R/logs/$name.log" 2>&1 || rc=$?
  grep -E "^(set|tiny|custom|W|S|G|N|file) |summary|CHECK FAILED" "$R/logs/$name.log" | sed "s/^/  /"
  if [ $rc -ne 0 ]; then
    echo "FAIL $name (status $rc after $((SECONDS - t0)) s)"; tail -5 "$R/logs/$name.log"; status=1
  else
    echo "ok   $name ($((SECONDS - t0)) s)"
  fi
}

step() {
  case $1 in
  check)
    for n in 1 2 4; do one "check-tiny-p$n" 60 $n -- --config tiny --check; done
    one "check-variants-p$PP" 60 "$PP" -- --config tiny --check --dtype fp16 \
      --schedule oblivious --order slice --slice 1,5,64
    one "check-g-p$PP" 120 "$PP" -- --config G --batch 2048 --tables-per-pe 64 --check --iters 5
    one check-queue-p2 90 2 "${NET_ENV[@]}" -- --config tiny --check --dtype bf16
    ;;
  W|S) for n in 1 2 3 4; do step "$1$n"; done ;;
  W[1-4]|S[1-4])
    # The global batch 16384 does not split over 3 PEs: P = 3 runs 16383
    # (5461 samples per PE), named in the table's B column.
    local bb=()
    [ "${1:1}" = 3 ] && bb=(--batch 16383)
    one "${1:0:1}-p${1:1}" 150 "${1:1}" -- --config "${1:0:1}" "${bb[@]}" --iters "$IT"
    ;;
  G) one "G-p$PP" 400 "$PP" -- --config G --iters "$IT" ;;
  N2|N4)
    one "N-p${1:1}" 500 "${1:1}" "${NET_ENV[@]}" -- --config N --iters "${DLRM_N_ITERS:-$IT}" \
      --warmup 2 ${DLRM_N_BATCH:+--batch $DLRM_N_BATCH} ${DLRM_N_TPP:+--tables-per-pe $DLRM_N_TPP}
    ;;
  sweep)
    one "sweep-p$PP" 200 "$PP" -- --config G --batch 4096 --tables-per-pe 64 \
      --slice 4,8,16,32,64,128,256 --iters "$IT"
    ;;
  order)
    one "order-W-p$PP" 200 "$PP" -- --config W --order slice --iters "$IT"
    one "order-G-p$PP" 200 "$PP" -- --config G --batch 4096,8192 --tables-per-pe 64,256 --order slice \
      --iters "$IT"
    ;;
  items)
    for r in 1 2 4 8; do
      one "items-G-r$r-p$PP" 100 "$PP" -- --config G --batch 4096 --tables-per-pe 64 \
        --item-rows $r --iters "$IT"
    done
    for r in 2 4 8 16 32; do one "items-W-r$r-p$PP" 100 "$PP" -- --config W --item-rows $r --iters "$IT"; done
    for r in 4 8 16 32; do one "items-S-r$r-p$PP" 100 "$PP" -- --config S --item-rows $r --iters "$IT"; done
    ;;
  trace)
    one "trace-p$PP" 120 "$PP" -- --config G --batch 4096 --tables-per-pe 64 --iters 5 \
      --trace "$R/trace-G-p$PP-b4096-t64.csv"
    ;;
  prof)
    if command -v ncu >/dev/null; then
      for k in dlrm_embed_kernel dlrm_fused_kernel; do
        timeout 120 ncu --clock-control none -k "regex:$k" -c 1 --section SpeedOfLight \
          --section MemoryWorkloadAnalysis --section Occupancy "$L" -n 1 "$A" --config W \
          --iters 1 --warmup 0 >"$R/logs/ncu-$k.log" 2>&1 || echo "ncu $k: status $?"
        grep -E "DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per" \
          "$R/logs/ncu-$k.log" | sed "s/^/  $k: /" | head -8
      done
    else
      echo "no ncu"
    fi
    NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/*/bin/nsys \
      /usr/local/cuda*/nsight-systems*/bin/nsys 2>/dev/null | head -1)
    if [ -n "$NSYS" ]; then
      timeout 150 env "${NET_ENV[@]}" "$NSYS" profile -t cuda,osrt --stats=true -o "$R/nsys-N-p2" \
        "$L" -n 2 "$A" --config N --batch 2048 --tables-per-pe 32 --iters 3 --warmup 1 \
        --mode baseline,fused >"$R/logs/nsys-N-p2.log" 2>&1 || echo "nsys: status $?"
      grep -E "cudaMemcpyAsync|cudaStreamSynchronize|cudaMemcpy |fi_|Time \(%\)" \
        "$R/logs/nsys-N-p2.log" | head -12 | sed "s/^/  nsys: /"
      rm -f "$R"/nsys-N-p2*.nsys-rep "$R"/nsys-N-p2*.sqlite
    else
      echo "no nsys on this machine: $(ls -d /opt/nvidia/* /usr/local/cuda*/nsight* 2>/dev/null | tr '\n' ' ')"
    fi
    ;;
  smoke) one smoke-p2 60 2 -- --config tiny --check --iters 5 ;;
  *) echo "unknown step $1"; status=1 ;;
  esac
}

(nvidia-smi -L; nvidia-smi topo -m) >"$R/gpus.txt" 2>&1
head -4 "$R/gpus.txt"
for s in "$@"; do step "$s"; done

# every CSV as a markdown table
python3 - "$R" "$O" <<'PY' || true
import csv, glob, os, sys
r = sys.argv[1]
cols = ["set", "P", "T", "B", "D", "Lmax", "slice", "order", "baseline_us", "fused_us",
        "compute_only_us", "speedup", "hiding", "embed_gbps", "copy_gbps", "p2p_peers",
        "queue_peers", "item_rows", "check_bad"]
with open(os.path.join(sys.argv[2], "summary.md"), "w") as out:
    for f in sorted(glob.glob(os.path.join(r, "*.csv"))):
        rows = list(csv.DictReader(open(f)))
        if not rows or "set" not in rows[0]:
            continue
        out.write("### %s\n\n%s\n\n| %s |\n|%s\n" % (os.path.basename(f), rows[0]["a2a"],
                  " | ".join(cols), "---|" * len(cols)))
        for x in rows:
            out.write("| %s |\n" % " | ".join(x.get(c, "") for c in cols))
        out.write("\n")
PY
tar czf "$O/dlrm-results.tgz" -C "$R" . && rm -rf "$R"
echo "results: $O/summary.md $O/dlrm-results.tgz"
exit $status
