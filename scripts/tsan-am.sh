#!/usr/bin/env bash
# tsan-am.sh [BUILD_DIR]: the ofi active-message path (its rails' threads,
# the target's apply, the engine-free host API) under ThreadSanitizer, on a
# host heap, so it runs anywhere (CUDA build: the path is compiled with
# CUDA; no GPU needed). Builds in BUILD_DIR (default build-tsan), with
# -fsanitize=thread on the C code, only what it runs (gshmemrun,
# pe_ofi_cuda and libgshmem; device code unoptimized: no kernel runs
# here), then runs pe_ofi_cuda host-stage over
# tcp;ofi_rxm (2 PEs on 1 and 4 rails, 4 PEs on 8) and shm (2 PEs on 4
# rails); then the unique-ID bootstrap's watcher thread beside the
# exchanges (pe_boot at 4 PEs started by tests/multipe/uid-run.sh: 20
# init cycles, and an abort that the watchers carry to every PE). Fails on
# any report (scripts/tsan-am.supp suppresses nothing:
# src/base/util/thread.h annotates the order that runs through the peers).
# Criterion does not start under TSan, hence the PE program directly.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-tsan}
GSHMEM_BUILD_TARGETS="gshmemrun pe_ofi_cuda pe_boot" bash scripts/build.sh "$B" \
  -DCMAKE_C_FLAGS="-fsanitize=thread -fno-omit-frame-pointer -O1 -g" -DCMAKE_CUDA_FLAGS="-Xptxas -O0" \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
  >/dev/null || { echo "tsan-am: build failed (see $B.cmake.log)"; exit 1; }
# history_size: the write of a report must keep its stack for the suppression to match
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 report_signal_unsafe=0 history_size=7 suppressions=$PWD/scripts/tsan-am.supp"
export GSHMEM_TIMEOUT=300   # TSan is slow: bootstrap waits get more time
status=0
# (2 PEs on 4 tcp rails left out for CI's time: 1 and 8 rails bracket it)
for run in "tcp;ofi_rxm 2 1" "tcp;ofi_rxm 4 8" "shm 2 4" "shm 4 4"; do
  set -- $run
  log=$(mktemp /tmp/tsan-am.XXXXXX)
  timeout 400 env GSHMEM_TRANSPORTS=ofi "GSHMEM_OFI_PROVIDER=$1" FI_TCP_IFACE=lo GSHMEM_HEAP=host \
    GSHMEM_SYMMETRIC_SIZE=64M GSHMEM_OFI_AM_CHUNK=256K GSHMEM_OFI_AM_RAILS=$3 \
    "$B/tools/gshmemrun/gshmemrun" -n "$2" --timeout 380 "$B/tests/pe/pe_ofi_cuda" host-stage \
    >"$log" 2>&1
  rc=$?
  ok=$(grep -c "pe_ofi_cuda: OK" "$log")
  races=$(grep -c "WARNING: ThreadSanitizer" "$log")
  echo "tsan-am: $1 -n $2, $3 rails: status $rc, $ok of $2 PEs OK, $races reports"
  if [ "$rc" != 0 ] || [ "$ok" != "$2" ] || [ "$races" != 0 ]; then
    status=1
    grep -A24 "WARNING: ThreadSanitizer" "$log" | head -120
    tail -5 "$log"
  fi
  rm -f "$log"
done
# mode, the status every PE must end with
for run in "cycles 20:0" "abort:7"; do
  mode=${run%:*} want=${run##*:}
  log=$(mktemp /tmp/tsan-am.XXXXXX)
  PE_BOOT_N=4 PE_BOOT_EXPECT=uid timeout 300 bash tests/multipe/uid-run.sh env 4 \
    "$B/tests/pe/pe_boot" $mode >"$log" 2>&1
  ended=$(grep -c "^uid-run: PE [0-3] status $want\$" "$log")
  races=$(grep -c "WARNING: ThreadSanitizer" "$log")
  echo "tsan-am: uid bootstrap, pe_boot $mode -n 4: $ended of 4 PEs ended with $want, $races reports"
  if [ "$ended" != 4 ] || [ "$races" != 0 ]; then
    status=1
    grep -A24 "WARNING: ThreadSanitizer" "$log" | head -120
    tail -8 "$log"
  fi
  rm -f "$log"
done
exit $status
