#!/bin/bash
# slurm.sh: a Slurm cluster on the simulated nodes of cluster.sh, so that
# jobs run under `srun --mpi=pmix` as on a real one: slurmctld in node 1,
# a slurmd in every node, all as root, their state, spool, logs and
# configuration under DIR/slurm (Debian's slurmctld and slurmd 22.05; no
# munge: auth/none and cred/none, which only a cluster nobody else can reach
# may use, as here).
#   slurm.sh up DIR      after `cluster.sh up DIR N`: writes
#                        DIR/slurm/slurm.conf, starts the daemons, waits
#                        (20 s at most) until every node is idle
#   SLURM_CONF=DIR/slurm/slurm.conf srun ...   in node 1 (cluster.sh run)
# The daemons run in sessions of their own (setsid): a caller that ends its
# process group when it returns (the test suite's runner) leaves them up.
# `cluster.sh down DIR` ends the daemons with every other process of the
# nodes. Exit status 77 with "slurm.sh: no slurm: <reason>" when the
# daemons or srun are missing.
set -euo pipefail

usage() {
    echo "usage: slurm.sh up DIR" >&2
    exit 2
}

[ $# -eq 2 ] && [ "$1" = up ] || usage
dir=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
for c in slurmctld slurmd srun sinfo; do
    command -v "$c" >/dev/null || { echo "slurm.sh: no slurm: no $c (Debian: slurmctld slurmd slurm-client)" >&2; exit 77; }
done
s=$dir/slurm
mkdir -p "$s/state" "$s/log"
nodes=()
{
    echo "ClusterName=gsn"
    read -r _ _ host addr < "$dir/nodes"
    echo "SlurmctldHost=$host($addr)"
    cat <<EOF
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool-%n
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd-%n.pid
SlurmctldLogFile=$s/log/slurmctld.log
SlurmdLogFile=$s/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=10
EOF
    while read -r k _ host addr; do
        slots=$(awk -v h="$host" '$1 == h { sub("slots=", "", $2); print $2 }' "$dir/hostfile")
        echo "NodeName=$host NodeAddr=$addr CPUs=${slots:-2} State=UNKNOWN"
        nodes+=("$k:$host")
    done < "$dir/nodes"
    echo "PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} > "$s/slurm.conf"
export SLURM_CONF=$s/slurm.conf
bash "$here/cluster.sh" run "$dir" 1 sh -c \
    "setsid slurmctld -D -f '$SLURM_CONF' >'$s/log/slurmctld.out' 2>&1 </dev/null &"
for kh in "${nodes[@]}"; do
    bash "$here/cluster.sh" run "$dir" "${kh%%:*}" sh -c \
        "setsid slurmd -D -f '$SLURM_CONF' -N '${kh#*:}' >'$s/log/slurmd-${kh#*:}.out' 2>&1 </dev/null &"
done
for _ in $(seq 1 40); do
    states=$(bash "$here/cluster.sh" run "$dir" 1 sinfo -h -N -o %t 2>/dev/null | sort -u | tr '\n' ' ')
    [ "$states" = "idle " ] && exit 0
    sleep 0.5
done
echo "slurm.sh: the nodes did not become idle in 20 s (states: ${states:-none}); logs in $s/log" >&2
tail -5 "$s"/log/* >&2 || true
exit 1
