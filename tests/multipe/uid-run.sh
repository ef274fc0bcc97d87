#!/usr/bin/env bash
# uid-run.sh: N PEs of a program under the unique-ID bootstrap, started by
# hand as a job without a launcher would be (test_uid.c, test_cluster.c).
#   uid-run.sh file N PROG MODE   PROG MODE PE N FILE per PE: the program
#                                 hands the ID over FILE (pe_uid.c)
#   uid-run.sh env N PROG ARGS... the program unchanged (gshmem_init): a
#                                 hand-made ID in GSHMEM_BOOTSTRAP_UID (a
#                                 free port of 127.0.0.1, or UID_ADDR:UID_PORT
#                                 when set), GSHMEM_BOOTSTRAP_UID_PE / _N_PES
# UID_NODE_CMD, when set, goes before each PE's command, followed by the
# PE's node from UID_NODE_OF (UID_NODE_CMD="bash cluster.sh run DIR",
# UID_NODE_OF="1 1 2 2": PEs 0 and 1 in node 1). Prints "uid-run: PE p status s"
# for each PE, and exits with the first non-zero status (0 when all were 0).
set -u
form=$1 n=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ "$form" = env ]; then
  addr=${UID_ADDR:-127.0.0.1}
  port=${UID_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
  token=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
  export GSHMEM_BOOTSTRAP_UID="gshmem-uid1 $addr $port $token" GSHMEM_BOOTSTRAP_UID_N_PES=$n
fi
read -r -a node_of <<< "${UID_NODE_OF:-}"
pids=()
for ((pe = 0; pe < n; pe++)); do
  pre=()
  [ -n "${UID_NODE_CMD:-}" ] && read -r -a pre <<< "$UID_NODE_CMD ${node_of[$pe]}"
  if [ "$form" = env ]; then
    GSHMEM_BOOTSTRAP_UID_PE=$pe "${pre[@]}" "$@" &
  else
    "${pre[@]}" "$1" "$2" "$pe" "$n" "$dir/id" &
  fi
  pids+=($!)
done
rc=0
for ((pe = 0; pe < n; pe++)); do
  s=0
  wait "${pids[$pe]}" || s=$?
  echo "uid-run: PE $pe status $s"
  [ "$rc" -ne 0 ] || rc=$s
done
exit "$rc"
