#!/bin/bash
# rsh-agent.sh: what ssh is to mpirun, for the nodes of tests/cluster/cluster.sh:
#   mpirun --mca plm_rsh_agent "bash .../rsh-agent.sh" ...
# Open MPI calls it as "rsh-agent.sh HOST WORD..." where the words are one
# command line for the remote shell (its own quotes included, e.g. around
# orte_hnp_uri), so they are joined and handed to sh -c, as sshd would.
# HOST is looked up in $GSN_CLUSTER_DIR/nodes (hostname or address),
# which the caller of mpirun sets; mpirun's environment reaches the agent.
set -euo pipefail

while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do   # ssh-style flags (e.g. -x): none apply
    shift
done
[ $# -ge 2 ] || { echo "usage: rsh-agent.sh [-flags] HOST COMMAND..." >&2; exit 255; }
dir=${GSN_CLUSTER_DIR:?rsh-agent.sh: GSN_CLUSTER_DIR (the cluster.sh DIR) is not set}
host=$1
shift
k=$(awk -v h="$host" '$3 == h || $4 == h { print $1 }' "$dir/nodes")
[ -n "$k" ] || { echo "rsh-agent.sh: no node $host in $dir/nodes" >&2; exit 255; }
if [ -n "${GSN_CLUSTER_AGENT_LOG:-}" ]; then   # what Open MPI passed, word by word
    printf '%q ' "$host" "$@" >>"$GSN_CLUSTER_AGENT_LOG"
    echo >>"$GSN_CLUSTER_AGENT_LOG"
fi
exec bash "$(dirname "$0")/cluster.sh" run "$dir" "$k" sh -c "$*"
