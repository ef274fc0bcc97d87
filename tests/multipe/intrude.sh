#!/bin/sh
# intrude.sh: the driver of the intrusion tests (test_intrude.c).
#
#   intrude.sh GSHMEMRUN VICTIM INTRUDER DIR MODE
#
# Runs a 2-PE job of VICTIM (pe_heap_guard) over ofi with tcp;ofi_rxm (MODE
# am: its active-message path), with no interface chosen (FI_TCP_IFACE
# unset: the default binding is under test) and GSHMEM_DEBUG=INFO, from
# which it learns PE 0's endpoint. Once the victim is ready it runs
# "INTRUDER MODE HOST PORT 4194304" against that endpoint, then lets the
# victim check the first 3 MiB it allocated of its 4 MiB heap. Prints "endpoint HOST:PORT", the intruder's line,
# "job status S" and the job's output.
run=$1 victim=$2 intruder=$3 dir=$4 mode=$5
am=0
[ "$mode" = am ] && am=1
env -u FI_TCP_IFACE -u FI_SOCKETS_IFACE GSHMEM_TRANSPORTS=ofi 'GSHMEM_OFI_PROVIDER=tcp;ofi_rxm' \
    GSHMEM_OFI_AM=$am GSHMEM_OFI_AM_CHUNK=256K GSHMEM_DEBUG=INFO GSHMEM_DEBUG_SUBSYS=TRANSPORT \
    GSHMEM_SYMMETRIC_SIZE=4M "$run" -n 2 --timeout 60 "$victim" "$dir/go" 3145728 >"$dir/job.log" 2>&1 &
job=$!
tries=0
until grep -q "pe_heap_guard: ready" "$dir/job.log" 2>/dev/null; do
    tries=$((tries + 1))
    if [ $tries -gt 600 ] || ! kill -0 $job 2>/dev/null; then
        echo "intrude.sh: the victim never got ready"
        touch "$dir/go"
        wait $job
        echo "job status $?"
        cat "$dir/job.log"
        exit 2
    fi
    sleep 0.05
done
ep=$(sed -n 's|.*PE0 gshmem INFO \[TRANSPORT\] ofi: provider .* endpoint fi_sockaddr_in://\([0-9.]*:[0-9]*\) .*|\1|p' \
    "$dir/job.log" | head -n 1)
echo "endpoint $ep"
"$intruder" "$mode" "${ep%:*}" "${ep##*:}" 4194304
touch "$dir/go"
wait $job
echo "job status $?"
cat "$dir/job.log"
