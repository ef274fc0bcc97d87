#!/usr/bin/env bash
# Configures and builds gshmem into build/ (or $1). The CUDA parts are built
# when nvcc is found (CUDA at /usr/local/cuda is picked up automatically).
# GSHMEM_BUILD_TARGETS (a space list) builds those targets only.
# GSHMEM_CUDA_ARCHS (CMAKE_CUDA_ARCHITECTURES form, e.g. "90" or
# "90-virtual") sets GSHMEM_CUDA_ARCHITECTURES.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
arch_args=()
[ -n "${GSHMEM_CUDA_ARCHS:-}" ] && arch_args=(-DGSHMEM_CUDA_ARCHITECTURES="$GSHMEM_CUDA_ARCHS")
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${arch_args[@]}" "$@" >"$dir.cmake.log" 2>&1 ||
  { cat "$dir.cmake.log"; exit 1; }
targets=()
for t in ${GSHMEM_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
