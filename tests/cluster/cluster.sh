#!/bin/bash
# cluster.sh: simulated nodes on this machine, for tests of jobs that span
# nodes. A node is a long-lived holder process (sleep) in namespaces of its
# own: network (one veth, eth0, to the cluster's switch), UTS (hostname
# gsn<k>-<id>), IPC, and mount with private tmpfs on /dev/shm and /tmp, so
# that whatever two nodes share, they share over the network. The switch is
# a bridge in a network namespace of its own; addresses are 198.18.<c>.<k>/24
# (198.18.0.0/15 is set aside for benchmarking, RFC 2544). Nothing is
# created in the caller's namespaces: no veth, no route, no mount.
#
#   cluster.sh up DIR N [SLOTS]   N nodes; DIR (not under /dev/shm, which
#                                 each node hides; under /tmp it is kept
#                                 visible, as are CLUSTER_KEEP's paths) gets:
#       nodes     "k pid hostname address", one line per node
#       hostfile  "hostname slots=SLOTS" (default 2), for mpirun
#       subnet    198.18.<c>.0/24 (oob_tcp_if_include, btl_tcp_if_include)
#       hosts     every node's name, bind-mounted on each node's /etc/hosts
#       holders   "role pid starttime" of every holder started, for down
#   cluster.sh run DIR K CMD...   CMD in node K, with this cwd and environment
#   cluster.sh down DIR           kills every process of every node and the
#                                 switch; safe after a partial up, and twice
#
# Exit status 77 with "cluster.sh: cannot make nodes: <reason>": this
# machine cannot (no root, no unshare/nsenter/ip, namespaces refused).
set -euo pipefail
shopt -s inherit_errexit

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

cannot() {
    echo "cluster.sh: cannot make nodes: $*" >&2
    exit 77
}

usage() {
    echo "usage: cluster.sh up DIR N [SLOTS] | run DIR K CMD... | down DIR" >&2
    exit 2
}

# Field 22 of /proc/PID/stat (start time in ticks): tells a holder from a
# later process that got its pid. Fails for a zombie: it holds no
# namespace any more, and this machine's init may take seconds to reap it.
# The command name, field 2, may hold blanks: count from its ")".
start_time() {
    local stat f
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    read -r -a f <<<"${stat##*) }"
    [ "${f[0]}" != Z ] || return 1
    echo "${f[19]}"
}

can_make_nodes() {
    local t err
    [ "$EUID" = 0 ] || cannot "not root (uid $EUID): namespaces, veths and mounts need it"
    for t in unshare nsenter ip mount setsid; do
        command -v "$t" >/dev/null || cannot "no $t on PATH (util-linux, iproute2)"
    done
    # What up needs of the kernel, in a namespace that dies with the probe.
    err=$(unshare --net --uts --ipc --mount --propagation private sh -c \
        'ip link add gsprobe0 type veth peer name gsprobe1 &&
         ip link add gsprobebr type bridge &&
         mount -t tmpfs tmpfs /tmp' 2>&1) ||
        cannot "namespaces, veth, bridge or tmpfs refused: $(echo "$err" | head -1)"
}

# Waits until holder PID has left unshare for sleep: its namespaces exist.
wait_exec() {
    local pid=$1 i comm
    for ((i = 0; i < 500; i++)); do
        comm=$(cat "/proc/$pid/comm" 2>/dev/null) || die "holder $pid ended during up"
        [ "$comm" = sleep ] && return 0
        sleep 0.01
    done
    die "holder $pid did not start in 5 s"
}

# Starts a holder with unshare's options "$@"; prints its pid. setsid: it
# outlives the caller's process group (a test runner kills that group).
start_holder() {
    local role=$1 pid
    shift
    setsid unshare "$@" sleep infinity </dev/null >/dev/null 2>&1 &
    pid=$!
    echo "$role $pid $(start_time "$pid" || echo 0)" >>"$DIR/holders"
    wait_exec "$pid"
    echo "$pid"
}

# Node PID's own /tmp, a tmpfs, through which DIR and the paths of
# CLUSTER_KEEP (the build, the sources: a clone under /tmp) stay visible:
# each is bound to a staging folder outside /tmp first, then moved back to
# its path on the new tmpfs.
node_tmp() {
    local pid=$1 k=$2 keep=() p i
    for p in "$DIR" ${CLUSTER_KEEP:-}; do
        case "$p/" in /tmp/*) keep+=("$(realpath -m "$p")") ;; esac
    done
    for ((i = 0; i < ${#keep[@]}; i++)); do
        mkdir -p "$STAGE/$k.$i"
        nsenter -t "$pid" -m mount --bind "${keep[$i]}" "$STAGE/$k.$i"
    done
    nsenter -t "$pid" -m mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
    for ((i = 0; i < ${#keep[@]}; i++)); do
        nsenter -t "$pid" -m mkdir -p "${keep[$i]}"
        nsenter -t "$pid" -m mount --move "$STAGE/$k.$i" "${keep[$i]}"
    done
}

up() {
    if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
    local n=$2 slots=${3:-2} id c k sw pid host addr veth
    [[ "$n" =~ ^[1-9][0-9]?$ ]] || die "N must be 1 to 99, not '$n'"
    [[ "$slots" =~ ^[1-9][0-9]*$ ]] || die "SLOTS must be a positive number, not '$slots'"
    can_make_nodes
    DIR=$(realpath -m "$1")
    case "$DIR/" in
    /dev/shm/*) die "DIR $DIR is under /dev/shm, which each node hides" ;;
    esac
    mkdir -p "$DIR"
    [ ! -s "$DIR/holders" ] || die "$DIR holds a cluster already (cluster.sh down $DIR)"
    trap 'echo "cluster.sh: up failed; taking down what it made" >&2; down_dir' EXIT
    # outside /tmp: the mount points of node_tmp's moves (empty once up)
    STAGE=$(mktemp -d /var/tmp/gsn-stage.XXXXXX)
    echo "$STAGE" >"$DIR/stage"

    id=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
    c=$((0x${id:0:2}))
    echo "198.18.$c.0/24" >"$DIR/subnet"
    : >"$DIR/nodes"
    : >"$DIR/hostfile"
    echo "127.0.0.1 localhost" >"$DIR/hosts"
    for ((k = 1; k <= n; k++)); do
        echo "198.18.$c.$k gsn$k-$id" >>"$DIR/hosts"
        echo "gsn$k-$id slots=$slots" >>"$DIR/hostfile"
    done

    sw=$(start_holder switch --net)
    nsenter -t "$sw" -n ip link set lo up
    nsenter -t "$sw" -n ip link add br0 type bridge
    nsenter -t "$sw" -n ip link set br0 up
    for ((k = 1; k <= n; k++)); do
        host=gsn$k-$id
        addr=198.18.$c.$k
        veth=gs${id}n$k   # the switch's end; the node's is eth0
        pid=$(start_holder "node$k" --net --uts --ipc --mount --propagation private)
        # shellcheck disable=SC2016 # $1 is the inner shell's
        nsenter -t "$pid" -u sh -c 'echo "$1" >/proc/sys/kernel/hostname' sh "$host"
        nsenter -t "$pid" -m mount --bind "$DIR/hosts" /etc/hosts
        nsenter -t "$pid" -m mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
        node_tmp "$pid" "$k"
        nsenter -t "$pid" -n ip link set lo up
        nsenter -t "$sw" -n ip link add "$veth" type veth peer name eth0 netns "$pid"
        nsenter -t "$sw" -n ip link set "$veth" master br0 up
        nsenter -t "$pid" -n ip addr add "$addr/24" dev eth0
        nsenter -t "$pid" -n ip link set eth0 up
        echo "$k $pid $host $addr" >>"$DIR/nodes"
    done
    trap - EXIT
}

# The pid of node K of DIR's cluster, checked to be alive.
node_pid() {
    local pid
    pid=$(awk -v k="$2" '$1 == k { print $2 }' "$1/nodes" 2>/dev/null) || true
    [ -n "$pid" ] || die "no node $2 in $1/nodes"
    [ -d "/proc/$pid" ] || die "node $2's holder $pid has ended (cluster.sh down $1)"
    echo "$pid"
}

run() {
    [ $# -ge 3 ] || usage
    local pid
    pid=$(node_pid "$1" "$2")
    shift 2
    # --wdns: the cwd as the node sees it (the same files but /tmp, /dev/shm)
    exec nsenter -t "$pid" -n -u -i -m --wdns="$PWD" -- "$@"
}

# Kills holder PID (if it is still the one started at START) and every
# process in its network namespace: those that entered it (nsenter, the
# programs of a test) keep the namespaces alive after the holder.
kill_holder() {
    local pid=$1 start=$2 ns p left
    [ "$(start_time "$pid" 2>/dev/null)" = "$start" ] || return 0
    ns=$(readlink "/proc/$pid/ns/net" 2>/dev/null) || return 0
    if [ "$ns" != "$(readlink /proc/self/ns/net)" ]; then
        # one stat for all: a readlink each took seconds on a slow machine
        for p in $(stat -c '%N' /proc/[0-9]*/ns/net 2>/dev/null |
            awk -v ns="'$ns'" -F '/| -> ' '$NF == ns { print $3 }'); do
            kill -KILL "$p" 2>/dev/null || true
        done
    fi
    kill -KILL "$pid" 2>/dev/null || true
    for ((left = 500; left > 0; left--)); do
        [ "$(start_time "$pid" 2>/dev/null)" = "$start" ] || return 0
        sleep 0.01
    done
    echo "cluster.sh: holder $pid did not end" >&2
    return 1
}

down_dir() {
    local role pid start rc=0
    if [ -s "$DIR/stage" ]; then   # empty folders by now: the mounts moved into the nodes
        case $(cat "$DIR/stage") in /var/tmp/gsn-stage.*) rm -rf "$(cat "$DIR/stage")" ;; esac
        rm -f "$DIR/stage"
    fi
    [ -f "$DIR/holders" ] || return 0
    # nodes first, the switch last (tac): the veths go with either end
    while read -r role pid start; do
        kill_holder "$pid" "$start" || rc=1
    done < <(tac "$DIR/holders")
    [ "$rc" = 0 ] || return 1
    rm -f "$DIR/holders" "$DIR/nodes" "$DIR/hostfile" "$DIR/hosts" "$DIR/subnet"
}

down() {
    [ $# -eq 1 ] || usage
    [ -d "$1" ] || return 0
    DIR=$(cd "$1" && pwd -P)
    down_dir
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
up) up "$@" ;;
run) run "$@" ;;
down) down "$@" ;;
*) usage ;;
esac
