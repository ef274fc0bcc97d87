#!/usr/bin/env bash
# Builds gshmem and runs every test that can run on this machine:
#  1. the normal build (CUDA parts compiled where nvcc exists) and its
#     Criterion suite (unit tests, multi-PE tests under gshmemrun over shm,
#     ofi/shm and ofi/tcp on loopback, the mpi and pmix bootstraps under
#     mpirun);
#  2. the same host tests built with AddressSanitizer + UBSan.
# GPU tests need a GPU; they print why they are skipped (scripts/gpu-check.sh
# runs them on a GPU machine).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export FI_TCP_IFACE=lo
jobs=$(nproc)

echo "== build (normal) =="
bash scripts/build.sh build
echo "== build (ASan+UBSan, host only) =="
bash scripts/build.sh build-asan -DGSHMEM_SANITIZE=ON -DGSHMEM_ENABLE_CUDA=OFF

status=0
echo "== tests: ASan+UBSan build =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
  build-asan/tests/gshmem-tests --jobs "$jobs" || status=1
echo "== tests: normal build =="
# --verbose lists every test, so the GPU tests' skip reasons are visible.
build/tests/gshmem-tests --jobs "$jobs" --verbose || status=1
exit $status
