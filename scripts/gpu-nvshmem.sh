#!/usr/bin/env bash
# gpu-nvshmem.sh BUILD_DIR STEP: on the GPU machine (../shared/GPU_MACHINE.md),
# NVSHMEM's examples and device perftests built unchanged against gshmem and
# against NVSHMEM (the Python environment's), run side by side. The NVSHMEM
# sources come as .gpu/nvshmem-src.tar.xz (examples/ and perftest/ of a clone
# of github.com/NVIDIA/nvshmem: scripts/gpu-nvshmem.sh pack SRC, on the
# development machine; "pack-built SUITE_DIR" carries gshmem's builds made
# there too, so that only NVSHMEM's are built here). STEPS, a comma list run in order:
#   build       both libraries' builds (nvshmem-suite.sh build), in
#               /tmp/gshmem-nvshmem-suite; a later step builds first when
#               that is gone (a fresh machine)
#   examples    run the examples of both
#   perftests   run the perftests of both, then the comparison
#               ($OUT/compare.csv and $OUT/compare.md, scripts/nvshmem_compare.py)
# LIBS (default "gshmem nvshmem") picks whose programs run, NVSHMEM_ONLY
# (examples or perftests) which of NVSHMEM's are built. With one GPU
# the PEs share it under MPS (started and stopped here). Results: $OUT/suite-<step>.tgz (logs, CSVs).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = pack ]; then
    src=${2:?usage: gpu-nvshmem.sh pack NVSHMEM_SRC}
    mkdir -p .gpu
    if [ -d "$src/examples" ]; then
        tar -cJf .gpu/nvshmem-src.tar.xz -C "$src" examples perftest
    else
        git --git-dir="$src" archive HEAD examples perftest | xz > .gpu/nvshmem-src.tar.xz
    fi
    du -sh .gpu/nvshmem-src.tar.xz
    exit 0
fi
if [ "${1:-}" = pack-built ]; then
    # gshmem's builds of the suite made here (nvshmem-suite.sh build SRC DIR gshmem)
    d=${2:?usage: gpu-nvshmem.sh pack-built SUITE_DIR}
    tar -cJf .gpu/nvshmem-suite-gshmem.tar.xz -C "$d" --exclude=src gshmem
    du -sh .gpu/nvshmem-suite-gshmem.tar.xz
    exit 0
fi
B=${1:?usage: gpu-nvshmem.sh BUILD_DIR STEPS}
steps=${2:?usage: gpu-nvshmem.sh BUILD_DIR STEPS (build,examples,perftests)}
OUT=${OUT:-/tmp/gshmem-gpu-nvshmem}
suite=/tmp/gshmem-nvshmem-suite
. scripts/gpu-env.sh "$B"
status=0

build_both() {
    rm -rf "$suite" && mkdir -p "$suite/src"
    tar -xJf .gpu/nvshmem-src.tar.xz -C "$suite/src"
    if [ -f .gpu/nvshmem-suite-gshmem.tar.xz ]; then
        # built on the development machine against the carried build (pack-built)
        tar -xJf .gpu/nvshmem-suite-gshmem.tar.xz -C "$suite"
        echo "gpu-nvshmem: gshmem's builds carried: $(grep -c ',1,' "$suite/gshmem/build.csv") built"
    else
        BUILD=$B bash scripts/nvshmem-suite.sh build "$suite/src" "$suite" gshmem || status=1
    fi
    if [ -n "$gpu_env_nvshmem" ]; then
        ONLY=${NVSHMEM_ONLY:-} NVSHMEM_HOME=$gpu_env_nvshmem \
            bash scripts/nvshmem-suite.sh build "$suite/src" "$suite" nvshmem || status=1
    else
        echo "gpu-nvshmem: no NVSHMEM in the Python environment: gshmem only"
    fi
}

run_step() {
    local step=$1 mps=0
    [ -d "$suite/gshmem" ] || build_both
    if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -lt 2 ]; then
        export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
        mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
        nvidia-cuda-mps-control -d && mps=1
    fi
    export LD_LIBRARY_PATH=${gpu_env_nvshmem:+$gpu_env_nvshmem/lib:}$LD_LIBRARY_PATH
    for lib in ${LIBS:-gshmem nvshmem}; do
        [ -d "$suite/$lib" ] || continue
        echo "== $lib $step"
        ONLY=$step BUILD=$B bash scripts/nvshmem-suite.sh run "$suite" "$lib" || status=1
    done
    [ "$mps" = 1 ] && echo quit | nvidia-cuda-mps-control
    if [ "$step" = perftests ]; then
        python3 scripts/nvshmem_compare.py "$suite" "$OUT/compare.csv" "$OUT/compare.md"
        cat "$OUT/compare.md"
    fi
}

mkdir -p "$OUT"
for step in ${steps//,/ }; do
    case $step in
    build) build_both ;;
    examples | perftests) run_step "$step" ;;
    *) echo "gpu-nvshmem: unknown step $step" >&2; exit 2 ;;
    esac
    tar czf "$OUT/suite-$step.tgz" -C "$suite" --exclude=src --exclude=bin . 2>/dev/null
done
exit $status
