#!/bin/sh
# serve_pes.sh: the driver of gshmemrun --serve's tests (test_serve.c): PEs
# started by this shell, as another launcher (torchrun) would, each with the
# GSHMEMRUN_* variables set by hand.
#
#   serve_pes.sh GSHMEMRUN N DIR MODE PROG [ARGS...]
#
# Starts "GSHMEMRUN --serve -n N --dir DIR" in the background (with --keep
# when MODE is keep), waits (10 s at most) for DIR/rdv.sock, starts N copies
# of PROG ARGS (PE 0 .. N-1), waits for them and prints "PE p status s" for
# each. MODE wait: then waits for the server and prints "server status s".
# MODE keep: exits without waiting; the server sees its parent go.
# MODE leave: exits 1 s after starting PE 0 alone (N >= 2: the others never
# come), while PE 0 waits; the server sees its parent go.
run=$1 n=$2 dir=$3 mode=$4
shift 4
keep=
[ "$mode" = keep ] && keep=--keep
"$run" --serve -n "$n" --dir "$dir" $keep &
server=$!
tries=0
while [ ! -S "$dir/rdv.sock" ]; do
    tries=$((tries + 1))
    if [ $tries -gt 200 ]; then
        echo "serve_pes.sh: no socket $dir/rdv.sock after 10 s"
        exit 2
    fi
    sleep 0.05
done
start_pe() {   # start_pe P PROG ARGS...
    pe=$1
    shift
    GSHMEMRUN_SOCKET="$dir/rdv.sock" GSHMEMRUN_PE=$pe GSHMEMRUN_N_PES=$n GSHMEMRUN_DIR="$dir" \
        "$@" &
}
if [ "$mode" = leave ]; then
    start_pe 0 "$@"
    sleep 1
    echo "serve_pes.sh: leaving PE 0 (pid $!) and the server (pid $server)"
    exit 0
fi
pids=
p=0
while [ $p -lt "$n" ]; do
    start_pe $p "$@"
    pids="$pids $!"
    p=$((p + 1))
done
p=0
for pid in $pids; do
    wait "$pid"
    echo "PE $p status $?"
    p=$((p + 1))
done
if [ "$mode" = wait ]; then
    wait "$server"
    echo "server status $?"
fi
