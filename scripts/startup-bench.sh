#!/usr/bin/env bash
# startup-bench.sh OUT_DIR [BUILD_DIR]: what a job's start costs as it
# grows, on simulated nodes of this machine (tests/cluster/cluster.sh; root):
# 2 to 32 PEs (LAYOUTS, "nodes x PEs per node", default "1x2 2x2 4x2 8x2
# 8x4"), the unique-ID bootstrap (a hand-made ID, PE 0 in node 1), host
# heaps, shm in a node and ofi (tcp;ofi_rxm on the nodes' eth0) between.
# Per layout and repetition (REPS, default 3):
#   boot_ms   the bootstrap alone: pe_boot (exchanges of 8 B .. 64 KiB, the
#             node map and directory) from the first PE's start to the last
#             PE's end
#   job_ms    pe_uid startup: the whole job, first start to last end
#   init_ms   the slowest PE's gshmem_init (bootstrap, heap, transports and
#             their connection setup)
#   fini_ms   the slowest PE's gshmem_finalize
#   mpirun_ms, mpirun_init_ms   the same job (pe_uid startup, the pmix
#             bootstrap) under Open MPI's mpirun started in node 1, orted in
#             the others through tests/cluster/rsh-agent.sh: the launcher
#             users have, timed the same way
# OUT_DIR/startup.csv and OUT_DIR/summary.md (medians).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: startup-bench.sh OUT_DIR [BUILD_DIR]}
B=$(cd "${2:-build}" && pwd)
LAYOUTS=${LAYOUTS:-"1x2 2x2 4x2 8x2 8x4"}
REPS=${REPS:-3}
mkdir -p "$OUT"
max_nodes=0 max_slots=0
for l in $LAYOUTS; do
  [ "${l%x*}" -gt "$max_nodes" ] && max_nodes=${l%x*}
  [ "${l#*x}" -gt "$max_slots" ] && max_slots=${l#*x}
done
C=$B/startup-cluster
rm -rf "$C" && mkdir -p "$C"
trap 'bash tests/cluster/cluster.sh down "$C" >/dev/null 2>&1 || true' EXIT
CLUSTER_KEEP="$B $PWD" bash tests/cluster/cluster.sh up "$C" "$max_nodes" "$max_slots" >/dev/null
addr=$(awk '$1 == 1 { print $4 }' "$C/nodes")
now_ms() { date +%s%3N; }
echo "layout,nodes,pes_per_node,pes,rep,boot_ms,job_ms,init_ms,fini_ms,mpirun_ms,mpirun_init_ms" \
  >"$OUT/startup.csv"
subnet=$(cat "$C/subnet")
mpi_run() {  # n hosts: pe_uid startup under mpirun in node 1; its output
  env -u FI_TCP_IFACE -u FI_SOCKETS_IFACE -u OMPI_MCA_btl_tcp_if_include \
    -u OMPI_MCA_oob_tcp_if_include GSN_CLUSTER_DIR="$C" OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 bash tests/cluster/cluster.sh run "$C" 1 \
    mpirun --allow-run-as-root -np "$1" --host "$2" --map-by slot \
    --mca plm_rsh_agent "bash $PWD/tests/cluster/rsh-agent.sh" --mca plm_rsh_no_tree_spawn 1 \
    --mca oob_tcp_if_include "$subnet" --mca btl_tcp_if_include "$subnet" \
    -x GSHMEM_BOOTSTRAP=pmix -x GSHMEM_HEAP=host -x FI_TCP_IFACE=eth0 "$B/tests/pe/pe_uid" startup
}
run() {  # n node_of prog args...: uid-run.sh across the nodes; its output
  local n=$1 of=$2
  shift 2
  env -u FI_TCP_IFACE -u FI_SOCKETS_IFACE -u OMPI_MCA_btl_tcp_if_include \
    UID_NODE_CMD="bash $PWD/tests/cluster/cluster.sh run $C" UID_NODE_OF="$of" \
    UID_ADDR="$addr" UID_PORT=29523 GSHMEM_HEAP=host FI_TCP_IFACE=eth0 \
    PE_BOOT_N="$n" PE_BOOT_EXPECT=uid PE_BOOT_NODES="$nodes" timeout 300 bash tests/multipe/uid-run.sh env "$n" "$@"
}
for l in $LAYOUTS; do
  nodes=${l%x*} k=${l#*x} n=$((${l%x*} * ${l#*x})) of=""
  for ((pe = 0; pe < n; pe++)); do of="$of $((pe / k + 1))"; done
  hosts=$(awk -v m="$nodes" -v k="$k" '$1 <= m { printf "%s%s:%d", (n++ ? "," : ""), $3, k }' \
          "$C/nodes")
  for ((rep = 1; rep <= REPS; rep++)); do
    t0=$(now_ms)
    run "$n" "$of" "$B/tests/pe/pe_boot" normal >"$OUT/boot-$l-$rep.log" 2>&1 ||
      { echo "startup-bench: pe_boot at $l failed:"; tail -20 "$OUT/boot-$l-$rep.log"; exit 1; }
    t1=$(now_ms)
    run "$n" "$of" "$B/tests/pe/pe_uid" startup >"$OUT/job-$l-$rep.log" 2>&1 ||
      { echo "startup-bench: pe_uid startup at $l failed:"; tail -20 "$OUT/job-$l-$rep.log"; exit 1; }
    t2=$(now_ms)
    mpi_run "$n" "$hosts" >"$OUT/mpi-$l-$rep.log" 2>&1 ||
      { echo "startup-bench: mpirun at $l failed:"; tail -20 "$OUT/mpi-$l-$rep.log"; exit 1; }
    t3=$(now_ms)
    minit=$(sed -n 's/^pe_uid: startup [0-9]* PEs: init max \([0-9.]*\) ms$/\1/p' "$OUT/mpi-$l-$rep.log")
    [ -n "$minit" ] || { echo "startup-bench: no time under mpirun at $l"; exit 1; }
    [ "$(grep -c 'OK (bootstrap uid' "$OUT/boot-$l-$rep.log")" = "$n" ] ||
      { echo "startup-bench: pe_boot at $l: not every PE passed"; exit 1; }
    init=$(sed -n 's/^pe_uid: startup [0-9]* PEs: init max \([0-9.]*\) ms$/\1/p' "$OUT/job-$l-$rep.log")
    fini=$(sed -n 's/^pe_uid: PE [0-9]* finalize \([0-9.]*\) ms$/\1/p' "$OUT/job-$l-$rep.log" |
           sort -g | tail -1)
    [ -n "$init" ] && [ -n "$fini" ] || { echo "startup-bench: no times at $l"; exit 1; }
    echo "$l,$nodes,$k,$n,$rep,$((t1 - t0)),$((t2 - t1)),$init,$fini,$((t3 - t2)),$minit" \
      >>"$OUT/startup.csv"
    rm -f "$OUT/boot-$l-$rep.log" "$OUT/job-$l-$rep.log" "$OUT/mpi-$l-$rep.log"
  done
done
python3 - "$OUT/startup.csv" >"$OUT/summary.md" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| layout | PEs | uid: bootstrap alone (ms) | uid: job (ms) | uid: slowest init (ms) "
      "| uid: slowest finalize (ms) | mpirun: job (ms) | mpirun (pmix): slowest init (ms) |")
print("|---|---|---|---|---|---|---|---|")
for l in dict.fromkeys(r["layout"] for r in rows):
    rs = [r for r in rows if r["layout"] == l]
    med = lambda k: statistics.median(float(r[k]) for r in rs)
    print("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |" % (l, rs[0]["pes"],
          med("boot_ms"), med("job_ms"), med("init_ms"), med("fini_ms"), med("mpirun_ms"),
          med("mpirun_init_ms")))
print("\nmedians of %d runs each (startup.csv)" % len(rs))
EOF
cat "$OUT/summary.md"
