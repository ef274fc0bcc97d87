#!/usr/bin/env bash
# The aggregator on the GPU machine (../shared/GPU_MACHINE.md), over a build
# made on the development machine and carried along (carry the build folder
# and .gpu, as for scripts/gpu-check.sh):
#   scripts/gpu-agg.sh [BUILD_DIR]          (default build-agg)
# Phases ($AGG_PHASES, default "tests bench"):
#   tests  the aggregator's GPU tests: the programs and arguments of
#          tests/multipe/test_agg_gpu.c (kernels over the queue path at 2 and
#          4 PEs, over ofi, the P2P bypass, the time flush, bad input), each
#          under a short launcher timeout ($AGG_TEST_TIMEOUT, 60 s);
#          AGG_TEST_LIST="name ..." runs only those; AGG_CRITERION=1 also
#          runs agg_gpu/* of the Criterion suite. The
#          host tests (agg/*, agg_host/*) run in CI.
#   bench  gshmem-perf-dev-agg-rate at 2 PEs over the queue path (CSV and
#          table in $OUT), then at 4 PEs on a smaller sweep ($AGG_BENCH4=0
#          skips it)
# Everything goes to $OUT (or /tmp/gshmem-agg-out): agg_rate_n*.csv,
# agg_rate_n*.txt, machine.txt, logs.tgz (the test logs) and, with
# AGG_CRITERION=1, tests.log.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-agg}
OUT=${OUT:-/tmp/gshmem-agg-out}
PHASES=${AGG_PHASES:-tests bench}
mkdir -p "$OUT/logs"
# Paths (the carried build's source link, Criterion) and the machine's rules.
. scripts/gpu-env.sh "$B"

{ date -u; hostname; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total \
  --format=csv; nvidia-smi topo -m; nproc; } >"$OUT/machine.txt" 2>&1
head -8 "$OUT/machine.txt"
status=0
L="$B/tools/gshmemrun/gshmemrun"

case " $PHASES " in *" tests "*)
  echo "== GPU tests (the programs and arguments of tests/multipe/test_agg_gpu.c) =="
  H="GSHMEM_HEAP=cuda GSHMEM_SYMMETRIC_SIZE=512M"
  Q="$H GSHMEM_TRANSPORTS=p2p GSHMEM_DEVICE_QUEUE_ONLY=1"
  OFI="$H GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi GSHMEM_OFI_PROVIDER=shm"
  P2P="$H GSHMEM_TRANSPORTS=p2p"
  T=${AGG_TEST_TIMEOUT:-60}
  run() {   # run NAME ENV N ARGS...: every PE must print "pe_agg: OK"
    local name=$1 env=$2 n=$3; shift 3
    local t0=$(date +%s) log="$OUT/logs/$name.log"
    timeout $((T + 5)) env $env "$L" -n "$n" --timeout "$T" "$B/tests/pe/pe_agg" "$@" >"$log" 2>&1
    local rc=$? ok=$(grep -c "pe_agg: OK (PE" "$log")
    if [ $rc = 0 ] && [ "$ok" = "$n" ]; then echo "PASS $name ($(( $(date +%s) - t0 )) s)"; else
      echo "FAIL $name (status $rc, $ok OK lines)"; tail -15 "$log"; status=1; fi
    grep -h "time-flush\|round 1" "$log" | head -4 | sed 's/^/  /'
  }
  bad() {   # bad NAME MODE WANT: non-zero status and WANT in the output
    local name=$1 mode=$2 want=$3 log="$OUT/logs/$1.log"
    timeout $((T + 5)) env $Q "$L" -n 2 --timeout "$T" "$B/tests/pe/pe_agg" "$mode" >"$log" 2>&1
    local rc=$?
    if [ $rc != 0 ] && grep -qF "$want" "$log" && grep -q "kernel failed as expected" "$log"
    then echo "PASS $name (status $rc)"; grep -F "$want" "$log" | head -1 | sed 's/^/  /'
    else echo "FAIL $name (status $rc)"; tail -15 "$log"; status=1; fi
  }
  t0=$(date +%s)
  want() { [ -z "${AGG_TEST_LIST:-}" ] || case " $AGG_TEST_LIST " in *" $1 "*) true ;; *) false ;; esac; }
  want stress-queue-n2 && run stress-queue-n2 "$Q" 2 stress 64 128 64 16384 4 0
  want stress-queue-n4 && run stress-queue-n4 "$Q" 4 stress 64 128 64 16384 4 0
  want warp-back-pressure-queue-n2 && run warp-back-pressure-queue-n2 "$Q" 2 stress 16 128 32 1024 1 1
  want warp-back-pressure-queue-n4 && run warp-back-pressure-queue-n4 "$Q" 4 stress 16 128 32 1024 1 1
  want stress-ofi-n2 && run stress-ofi-n2 "$OFI" 2 stress 16 128 32 16384 4 1
  want stress-p2p-bypass-n2 && run stress-p2p-bypass-n2 "$P2P" 2 stress 64 128 64 16384 4 0
  want time-flush-queue-n2 && run time-flush-queue-n2 "$Q" 2 timeflush 20000
  want bad-size && bad bad-size bad_size "gshmem_agg_store: a record of 1024 bytes to PE 1 does not fit a buffer (1 .. 1016 payload bytes with 1024-byte buffers)"
  want bad-pe && bad bad-pe bad_pe "gshmem_agg_store: invalid PE 2 (n_pes 2)"
  echo "tests: $(( $(date +%s) - t0 )) s"
  if [ "${AGG_CRITERION:-0}" = 1 ]; then
    "$B/tests/gshmem-tests" --jobs 2 --verbose --filter 'agg_gpu/*' >"$OUT/tests.log" 2>&1 ||
      status=1
    grep -E "Synthesis|FAIL|Crash" "$OUT/tests.log" | tail -10
  fi
  ;;
esac

case " $PHASES " in *" bench "*)
  echo "== agg_rate =="
  bench() {   # bench NAME PES ARGS...
    local name=$1 n=$2; shift 2
    t0=$(date +%s)
    if timeout "${AGG_BENCH_TIMEOUT:-240}" env GSHMEM_HEAP=cuda GSHMEM_SYMMETRIC_SIZE=1G \
        GSHMEM_TIMEOUT="${AGG_BENCH_GSHMEM_TIMEOUT:-60}" \
        "$L" -n "$n" --timeout "${AGG_BENCH_TIMEOUT:-240}" \
        "$B/apps/perf/device/gshmem-perf-dev-agg-rate" -o "$OUT/$name.csv" "$@" \
        >"$OUT/$name.txt" 2>&1; then echo "PASS $name ($(( $(date +%s) - t0 )) s)"; else
      echo "FAIL $name (status $?)"; status=1; fi
    cat "$OUT/$name.txt"
  }
  bench agg_rate_n2 2 ${AGG_BENCH_ARGS:-}
  if [ "${AGG_BENCH4:-1}" = 1 ]; then
    bench agg_rate_n4 4 -b 4K -e 64K -f 4 -W 100 ${AGG_BENCH_ARGS:-}
  fi
  ;;
esac

tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
exit $status
