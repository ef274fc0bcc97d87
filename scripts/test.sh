#!/usr/bin/env bash
# Builds gshmem and runs every test that can run on this machine:
#  1. the normal build (CUDA parts compiled where nvcc exists) and its
#     Criterion suite (unit tests, multi-PE tests under gshmemrun over shm,
#     ofi/shm and ofi/tcp on loopback, the mpi and pmix bootstraps under
#     mpirun);
#  2. the same host tests built with AddressSanitizer + UBSan;
#  3. with hipcc on PATH, a compile check of the device API for AMD GPUs
#     (status line "HIP compile check: ...", printed after the build and at
#     the end);
#  4. the layer check, scripts/check-layers.sh on the normal build (includes,
#     calls between the layers' objects, transport names) and its self-test;
#     a violation fails the run after the remaining tests have run (status
#     lines "check-layers: ...", printed after the check and at the end).
# GPU tests need a GPU; they print why they are skipped (scripts/gpu-check.sh
# runs them on a GPU machine).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export FI_TCP_IFACE=lo
jobs=$(nproc)
# Each stage's wall time, printed as it ends and again at the end, so a
# slow CI run says where its time went.
stage_times=()
run_rcs=()
stage_t0=$SECONDS
stage_done() {  # name: records the time since the previous stage ended
  local t=$((SECONDS - stage_t0))
  stage_times+=("$(printf '%4d s  %s' "$t" "$1")")
  echo "== time: $1: $t s =="
  stage_t0=$SECONDS
}

# HIP compile check: with hipcc on PATH the normal build also compiles the
# device API (every call, tests/gpu/api_compile.cu) and the SQ ring with
# hipcc for GSHMEM_HIP_ARCHITECTURES (default gfx90a); a failure fails the run.
hip_args=(-DGSHMEM_ENABLE_HIP=OFF)
command -v hipcc >/dev/null 2>&1 && hip_args=(-DGSHMEM_ENABLE_HIP=ON)

# Where no GPU is seen the CUDA code is compiled to PTX only (compute_90,
# no ptxas: about half the compile time of CI's build); the GPU tests, which
# cannot run here, are still compiled. A machine with a GPU builds SASS.
if [ -z "${GSHMEM_CUDA_ARCHS:-}" ] && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  export GSHMEM_CUDA_ARCHS=90-virtual
  echo "no GPU seen: CUDA code compiled to PTX only (GSHMEM_CUDA_ARCHS=90-virtual)"
fi
echo "== build (normal) =="
build_rc=0
bash scripts/build.sh build "${hip_args[@]}" || build_rc=$?
if [ "${hip_args[0]}" = -DGSHMEM_ENABLE_HIP=ON ]; then
  hip_arch=$(sed -n 's/^GSHMEM_HIP_ARCHITECTURES:[A-Z]*=//p' build/CMakeCache.txt 2>/dev/null || true)
  if cmake --build build --target gshmem-device-api-hip-check gshmem-ring-hip-check \
       >build/hip-check.log 2>&1; then
    hip_status="HIP compile check: OK (gshmem-device-api-hip-check, gshmem-ring-hip-check, ${hip_arch:-gfx90a})"
  else
    cat build/hip-check.log || true
    hip_status="HIP compile check: FAILED (hipcc output above)"
    build_rc=1
  fi
else
  hip_status="HIP compile check: skipped (no hipcc on PATH)"
fi
echo "$hip_status"
stage_done "build (normal)"
[ "$build_rc" -eq 0 ] || exit "$build_rc"

# The layer check: its violations, then one summary line; the self-test
# plants violations in temporary trees and expects each one reported.
layers_rc=0
layer_check() {  # var, args...: runs the check; var gets its status line
  local out rc=0
  out=$(bash scripts/check-layers.sh "${@:2}" 2>&1) || rc=$?
  printf '%s\n' "$out"
  local last=${out##*$'\n'}
  [[ $last == "check-layers"* ]] || last="check-layers ${*:2}: FAILED (status $rc, output above)"
  [ "$rc" -eq 0 ] || layers_rc=1
  printf -v "$1" '%s' "$last"
}
echo "== layer check (scripts/check-layers.sh build) =="
layer_check layers_status build
layer_check layers_self_test --self-test
stage_done "layer check"
# wait_slow's one test sleeps 90 s (a PE computing longer than the old
# 60 s cap): it runs beside the ASan build instead of alone at the end of
# the normal suite (which leaves it out); its result joins that stage's.
build/tests/gshmem-tests --filter 'wait_slow/*' --verbose >build/wait-slow.log 2>&1 &
wait_slow_pid=$!
echo "== build (ASan+UBSan, host only) =="
bash scripts/build.sh build-asan -DGSHMEM_SANITIZE=ON -DGSHMEM_ENABLE_CUDA=OFF
stage_done "build (ASan+UBSan)"

status=$layers_rc
echo "== tests: ASan+UBSan build =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
  build-asan/tests/gshmem-tests --jobs "$jobs" 2>&1 | tee build-asan/tests.log || { run_rcs+=("ASan+UBSan run: exit ${PIPESTATUS[0]}"); status=1; }
stage_done "tests (ASan+UBSan)"
# ThreadSanitizer on the ofi active-message path (its rails' threads), a
# host heap: the path is compiled in CUDA builds only.
echo "== tests: ThreadSanitizer, ofi active messages (scripts/tsan-am.sh) =="
if grep -q "^GSHMEM_ENABLE_CUDA:BOOL=ON" build/CMakeCache.txt 2>/dev/null; then
  if bash scripts/tsan-am.sh build-tsan; then
    tsan_status="ThreadSanitizer (scripts/tsan-am.sh): OK"
  else
    tsan_status="ThreadSanitizer (scripts/tsan-am.sh): FAILED (output above)"
    status=1
  fi
else
  tsan_status="ThreadSanitizer (scripts/tsan-am.sh): skipped (no CUDA build: the path is not built)"
fi
echo "$tsan_status"
stage_done "ThreadSanitizer (build and runs)"
echo "== tests: normal build =="
# --verbose lists every test, so the GPU tests' skip reasons are visible.
build/tests/gshmem-tests --jobs "$jobs" --verbose --filter '!(wait_slow/*)' 2>&1 |
  tee build/tests.log || { run_rcs+=("normal run: exit ${PIPESTATUS[0]}"); status=1; }
echo "== tests: wait_slow (ran beside the ASan build) =="
wait_slow_rc=0
wait "$wait_slow_pid" || wait_slow_rc=$?
cat build/wait-slow.log
[ "$wait_slow_rc" -eq 0 ] || { status=1; run_rcs+=("wait_slow run: exit $wait_slow_rc"); }
stage_done "tests (normal)"
# The failed tests of every Criterion run, by name, so the end of a failed
# run's log says which they were: failed assertions, crashes, timeouts,
# Criterion's warnings (a crash in a test's setup or teardown, a
# cr_log_warn: each makes the run exit 1 with no [FAIL] line) and sanitizer
# reports.
logs=(build-asan/tests.log build/tests.log build/wait-slow.log)
failed=$(grep -h -E -A14 '^\[FAIL\]|^\[WARN\]|: Assertion Failed|Warning! The test|^(==[0-9]+==)?ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error:' \
           "${logs[@]}" 2>/dev/null | head -200 || true)
echo "== stage times =="
printf '%s\n' "${stage_times[@]}"
echo "$hip_status"
echo "$layers_status"
echo "$layers_self_test"
echo "$tsan_status"
grep -H 'Synthesis:' "${logs[@]}" 2>/dev/null || true
[ "${#run_rcs[@]}" -eq 0 ] || printf '%s\n' "${run_rcs[@]}"
if [ -n "$failed" ]; then
  echo "== failed tests (ASan+UBSan, normal and wait_slow runs) =="
  printf '%s\n' "$failed"
fi
exit $status
