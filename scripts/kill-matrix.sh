#!/usr/bin/env bash
# kill-matrix.sh: gshmemrun's failure reports, measured. For each transport
# (shm, ofi/shm, ofi/tcp) and PE count (4, 8), RUNS runs of
# tests/pe/pe_kill in which one PE fails while every PE moves data: exit(3),
# exit(7), SIGKILL, SIGSEGV, SIGABRT (abort()) or SIGTERM, at a random PE,
# after a random number of ms of traffic (or before gshmem_init), under
# puts + AMOs or a barrier loop. Each run passes when:
#   named_ok  gshmemrun's one failure line names that PE, its pid and its real
#             end ("PE k (pid p) exited with status 3", "... was killed by
#             signal 11 (...")
#   rc        gshmemrun's status is the PE's (the status, or 128 + signal)
#   left_tmp  nothing is left in the run's own TMPDIR, a private folder under
#             /tmp per run (gshmemrun makes its gshmemrun-XXXXXX there, the
#             PEs' node folder; under gshmemrun the PEs make no /tmp/gshmem-*
#             of their own: that is the mpi/pmix/self bootstraps'). Other jobs
#             on the machine are not counted.
#   left_shm  no /dev/shm object of this run's PEs (names gshmem-<pid>-...,
#             the pids of this run's PEs; the names before and after compared)
#   left_procs  no PE of this run still alive once gshmemrun returned
#
#   scripts/kill-matrix.sh [BUILD_DIR]      (default build-h2)
# Env: RUNS (20), PES ("4 8"), TPS ("shm ofi-shm ofi-tcp"; also "ofi-shm-am":
# ofi/shm with GSHMEM_OFI_AM=1, the active-message path), SEED (1),
# OUT (docs/results/hardening-2026-12-02), CSV (OUT/kill-matrix.csv),
# LAUNCHER_KILLS (0: extra runs per cell in which gshmemrun itself is
# SIGKILLed 1.5 s into the run; rows how=launcher-kill, not in the pass
# counts), CLEAN (1: after a failed run, remove what it left in /dev/shm;
# its TMPDIR goes anyway).
# Prints one summary line per transport and PE count; exits 1 if any run
# failed a check.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-h2}
RUNS=${RUNS:-20}
PES=${PES:-"4 8"}
TPS=${TPS:-"shm ofi-shm ofi-tcp"}
SEED=${SEED:-1}
OUT=${OUT:-docs/results/hardening-2026-12-02}
CSV=${CSV:-$OUT/kill-matrix.csv}
LAUNCHER_KILLS=${LAUNCHER_KILLS:-0}
CLEAN=${CLEAN:-1}
L=$(realpath "$B/tools/gshmemrun/gshmemrun")
P=$(realpath "$B/tests/pe/pe_kill")
[ -x "$L" ] && [ -x "$P" ] || { echo "kill-matrix: build $B first (gshmemrun, pe_kill)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FI_TCP_IFACE=lo
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
unset GSHMEM_TRANSPORTS GSHMEM_OFI_PROVIDER GSHMEM_OFI_AM
WORK=$(mktemp -d /tmp/kill-matrix.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$(dirname "$CSV")"
rm -f "${CSV%.csv}.failures.txt"   # a previous run's
RANDOM=$SEED
HOWS=(exit3 exit7 kill segv abort term)
declare -A SIG=([kill]=9 [segv]=11 [abort]=6 [term]=15)
echo "transport,pes,run,how,pe,when_ms,traffic,expected_rc,rc,named_ok,left_tmp,left_shm,left_procs,seconds,pass,signature" >"$CSV"

tp_env() {
  case $1 in
    shm) echo "GSHMEM_TRANSPORTS=shm" ;;
    ofi-shm) echo "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm" ;;
    ofi-shm-am) echo "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm GSHMEM_OFI_AM=1" ;;
    ofi-tcp) echo "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=tcp;ofi_rxm FI_TCP_IFACE=lo" ;;
    *) echo "kill-matrix: unknown transport $1" >&2; exit 2 ;;
  esac
}

# The 20 ways of a cell: every HOW three times, the rest at random, shuffled.
plan_hows() {
  local list=() i j t
  for i in $(seq 0 $((RUNS - 1))); do
    if [ "$i" -lt $((${#HOWS[@]} * 3)) ]; then list+=("${HOWS[$((i % ${#HOWS[@]}))]}")
    else list+=("${HOWS[$((RANDOM % ${#HOWS[@]}))]}"); fi
  done
  for ((i = ${#list[@]} - 1; i > 0; i--)); do
    j=$((RANDOM % (i + 1))); t=${list[$i]}; list[$i]=${list[$j]}; list[$j]=$t
  done
  echo "${list[@]}"
}

# How many of the pids are alive (a zombie counts as gone).
alive() {
  local p c=0
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] &&
      c=$((c + 1))
  done
  echo "$c"
}

# One run: transport, pes, run index, how, victim, when, traffic.
one_run() {
  local tp=$1 n=$2 run=$3 how=$4 pe=$5 when=$6 traffic=$7
  local rdir="$WORK/r" want named=0 left_tmp=0 left_shm=0 left_procs=0 rc
  rm -rf "$rdir"; mkdir -p "$rdir/tmp"
  ls /dev/shm | sort >"$WORK/shm.before"
  local t0 t1
  t0=$(date +%s.%N)
  if [ "$how" = launcher-kill ]; then
    env $(tp_env "$tp") TMPDIR="$rdir/tmp" PIDS="$rdir/pids" \
      "$L" -n "$n" --timeout 40 sh -c 'echo "$GSHMEMRUN_PE $$" >>"$PIDS"; exec "$0" "$@"' \
      "$P" none 0 100000000 "$traffic" >"$rdir/out" 2>"$rdir/err" &
    local lp=$!
    sleep "$(printf '0.%03d' $((when)))"; sleep 1.5   # past init: in traffic
    kill -KILL "$lp" 2>/dev/null; wait "$lp" 2>/dev/null; rc=$?
    want=137
  else
    env $(tp_env "$tp") TMPDIR="$rdir/tmp" PIDS="$rdir/pids" timeout -s KILL 60 \
      "$L" -n "$n" --timeout 40 sh -c 'echo "$GSHMEMRUN_PE $$" >>"$PIDS"; exec "$0" "$@"' \
      "$P" "$how" "$pe" "$when" "$traffic" >"$rdir/out" 2>"$rdir/err"
    rc=$?
    case $how in exit3) want=3 ;; exit7) want=7 ;; *) want=$((128 + ${SIG[$how]})) ;; esac
  fi
  t1=$(date +%s.%N)
  local vpid
  vpid=$(awk -v p="$pe" '$1 == p {print $2}' "$rdir/pids" 2>/dev/null | head -1)
  local line
  line=$(grep -m1 '^gshmemrun: PE ' "$rdir/err" || true)
  case $how in
    exit3|exit7) [ "$line" = "gshmemrun: PE $pe (pid $vpid) exited with status $want" ] && named=1 ;;
    launcher-kill) named=1 ;;   # nothing to name: the launcher itself died
    *) case $line in "gshmemrun: PE $pe (pid $vpid) was killed by signal ${SIG[$how]} ("*) named=1 ;; esac ;;
  esac
  local pids k
  pids=$(awk '{print $2}' "$rdir/pids" 2>/dev/null | sort -u | tr '\n' ' ')
  # a PE of a SIGKILLed gshmemrun may still be on its way out: 2 s at most
  for k in $(seq 20); do [ "$(alive $pids)" = 0 ] && break; sleep 0.1; done
  left_procs=$(alive $pids)
  left_tmp=$(find "$rdir/tmp" -mindepth 1 -maxdepth 1 | wc -l)
  for p in $pids; do
    left_shm=$((left_shm + $(comm -13 "$WORK/shm.before" <(ls /dev/shm | sort) |
                              grep -c "^gshmem-$p-")))
  done
  local pass=1 sig
  [ "$named" = 1 ] && [ "$rc" = "$want" ] && [ "$left_tmp" = 0 ] && [ "$left_shm" = 0 ] &&
    [ "$left_procs" = 0 ] || pass=0
  # what gshmemrun said first (its failure line, else its first line), for the report
  sig=$(grep -m1 '^gshmemrun:' "$rdir/err" || head -1 "$rdir/err")
  sig=$(printf '%s' "$sig" | sed -E 's/pid [0-9]+/pid N/g; s/[0-9]{4,}/N/g' | tr -d ',"' | cut -c1-200)
  local why=""
  [ "$rc" = "$want" ] || why="$why rc $rc not $want;"
  [ "$named" = 1 ] || why="$why PE $pe not named as $how;"
  [ "$left_tmp" = 0 ] || why="$why left $left_tmp in tmp;"
  [ "$left_shm" = 0 ] || why="$why left $left_shm in /dev/shm;"
  [ "$left_procs" = 0 ] || why="$why $left_procs PEs alive;"
  sig="$why${why:+ }$sig"
  [ "$pass" = 1 ] && sig=""
  printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.2f,%s,"%s"\n' "$tp" "$n" "$run" "$how" "$pe" \
    "$when" "$traffic" "$want" "$rc" "$named" "$left_tmp" "$left_shm" "$left_procs" \
    "$(echo "$t1 - $t0" | bc)" "$pass" "$sig" >>"$CSV"
  if [ "$pass" = 0 ]; then
    { echo "== $tp n=$n run=$run how=$how pe=$pe when=$when traffic=$traffic rc=$rc want=$want" \
           "named=$named left_tmp=$left_tmp left_shm=$left_shm left_procs=$left_procs"
      head -c 1500 "$rdir/err"; echo "-- left in TMPDIR:"; ls -la "$rdir/tmp"
      echo "-- new /dev/shm of its PEs:"
      for p in $pids; do ls /dev/shm | grep "^gshmem-$p-"; done; } >>"$WORK/failures"
    for p in $pids; do   # only this run's own PEs and their own objects
      kill -KILL "$p" 2>/dev/null
      [ "$CLEAN" = 1 ] && comm -13 "$WORK/shm.before" <(ls /dev/shm | sort) |
        grep "^gshmem-$p-" | while read -r o; do rm -f "/dev/shm/$o"; done
    done
  fi
  [ "$pass" = 1 ]
}

fails=0
for tp in $TPS; do
  for n in $PES; do
    read -r -a hows <<<"$(plan_hows)"
    ok=0; t_cell=$(date +%s)
    for run in $(seq 1 "$RUNS"); do
      how=${hows[$((run - 1))]}
      pe=$((RANDOM % n))
      traffic=$([ $((RANDOM % 2)) = 0 ] && echo amo || echo barrier)
      if [ $((RANDOM % 10)) = 0 ]; then when=init; else when=$((RANDOM % 800)); fi
      one_run "$tp" "$n" "$run" "$how" "$pe" "$when" "$traffic" && ok=$((ok + 1))
    done
    fails=$((fails + RUNS - ok))
    echo "kill-matrix: $tp, $n PEs: $ok/$RUNS passed ($(( $(date +%s) - t_cell )) s)"
    for k in $(seq 1 "$LAUNCHER_KILLS"); do
      traffic=$([ $((RANDOM % 2)) = 0 ] && echo amo || echo barrier)
      if one_run "$tp" "$n" "L$k" launcher-kill - $((RANDOM % 500)) "$traffic"; then
        echo "kill-matrix: $tp, $n PEs: launcher SIGKILL run $k: clean"
      else
        echo "kill-matrix: $tp, $n PEs: launcher SIGKILL run $k: left something (see CSV)"
      fi
    done
  done
done
if [ -s "$WORK/failures" ]; then
  cp "$WORK/failures" "${CSV%.csv}.failures.txt"
  echo "kill-matrix: details of the failed runs: ${CSV%.csv}.failures.txt"
fi
echo "kill-matrix: CSV: $CSV"
[ "$fails" = 0 ]
