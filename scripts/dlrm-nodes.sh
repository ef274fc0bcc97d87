#!/usr/bin/env bash
# dlrm-nodes.sh BUILD_DIR: DLRM set N across two simulated nodes on the GPU
# machine (BENCHMARKS.md section 1c), one GPU PE in each, both sharing the
# first GPU under MPS when only one is lent (tests/cluster/cluster.sh makes
# the nodes: network, UTS, IPC and mount namespaces, a veth pair each on a
# private bridge, 198.18.x.0/24; nothing leaves the machine).
# gshmem: the unique-ID bootstrap (tests/multipe/uid-run.sh), GPU heaps, the
# device queue -> engine -> libfabric tcp;ofi_rxm on the nodes' eth0. The
# baseline in the same launch: NCCL over its socket transport on the same
# eth0, once with NCCL's defaults and once tuned as a user would
# (NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD, DLRM_NODES_TUNED). Every row
# checked first (--check on a small case, then the app's own checks).
# DLRM_N_BATCH / DLRM_N_TPP prune the grid (default: all 20 cases);
# DLRM_ITERS (default 20); DLRM_NODES_LIMIT: seconds per launch (560). Results: $OUT/dlrm-nodes-{default,tuned}.csv and
# .log, and a table on stdout.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:?usage: scripts/dlrm-nodes.sh BUILD_DIR}
. scripts/gpu-env.sh "$B"
B=$gpu_env_build
O=${OUT:-/tmp/dlrm-nodes}
mkdir -p "$O"
A="$B/apps/dlrm/gshmem-dlrm"
IT=${DLRM_ITERS:-20}
TUNED=${DLRM_NODES_TUNED:-"NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=4"}
status=0

mps=0
if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -le 1 ] && [ -z "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
  # the pipe directory where the nodes see it (each node has a /tmp of its own)
  export CUDA_MPS_PIPE_DIRECTORY=$B/.mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && mps=1
fi
C=$(mktemp -d "$B/dlrm-nodes.XXXXXX")
cleanup() {
  bash tests/cluster/cluster.sh down "$C" >/dev/null 2>&1
  rm -rf "$C"
  [ "$mps" = 1 ] && echo quit | nvidia-cuda-mps-control
}
trap cleanup EXIT
CLUSTER_KEEP="$gpu_env_root $B" bash tests/cluster/cluster.sh up "$C" 2 1 || exit 1
addr=$(awk '$1 == 1 { print $4 }' "$C/nodes")

# run NAME LIMIT_S NCCL_SETTINGS ARGS...: one launch of both PEs
run() {
  local name=$1 limit=$2 nccl=$3
  shift 3
  # shellcheck disable=SC2086  # nccl: VAR=value words
  # EAGER: the app makes CUDA calls before gshmem_init, which would set it
  timeout "$limit" env -u FI_TCP_IFACE FI_TCP_IFACE=eth0 GSHMEM_HEAP=cuda CUDA_MODULE_LOADING=EAGER \
    GSHMEM_TIMEOUT=120 NCCL_SOCKET_IFNAME=eth0 NCCL_IB_DISABLE=1 NCCL_P2P_DISABLE=1 \
    NCCL_SHM_DISABLE=1 $nccl UID_NODE_CMD="bash tests/cluster/cluster.sh run $C" \
    UID_NODE_OF="1 2" UID_ADDR="$addr" UID_PORT=29531 \
    bash tests/multipe/uid-run.sh env 2 "$A" "$@" >"$O/$name.log" 2>&1
  local rc=$?
  grep -E "^(set|tiny|N) |CHECK FAILED" "$O/$name.log" | sed "s/^/  /"
  [ $rc -eq 0 ] || { echo "FAIL $name (status $rc)"; tail -5 "$O/$name.log"; status=1; }
}

echo "== check: tiny across the nodes, every mode against the fp64 reference"
run check 120 "" --config tiny --check --dtype bf16
for mode in default tuned; do
  nccl=""
  [ $mode = tuned ] && nccl=$TUNED
  echo "== N across two nodes, NCCL $mode${nccl:+ ($nccl)}"
  run "dlrm-nodes-$mode" "${DLRM_NODES_LIMIT:-560}" "$nccl" --config N --iters "$IT" --warmup 2 \
    ${DLRM_N_BATCH:+--batch $DLRM_N_BATCH} ${DLRM_N_TPP:+--tables-per-pe $DLRM_N_TPP} \
    --csv "$O/dlrm-nodes-$mode.csv"
done
exit $status
