#!/usr/bin/env bash
# nvshmem-suite.sh: NVSHMEM's own examples and device perftests, built
# unchanged against gshmem (no -rdc) or against NVSHMEM (-rdc, its device
# library), then run. Their code is never copied into this repository: it is
# read from an NVSHMEM source tree (a clone of github.com/NVIDIA/nvshmem, or
# its bare git directory) at build time.
#
#   scripts/nvshmem-suite.sh build SRC OUT [gshmem|nvshmem]
#       compile SRC's examples/ and perftest/device/{pt-to-pt,coll} into
#       OUT/<lib>/ (bin/, logs/, build.csv: program,builds,seconds);
#       gshmem: include/ and $BUILD/libgshmem.so of this tree (BUILD,
#       default build); nvshmem: NVSHMEM_HOME (include/, lib/) as
#       NVSHMEM's CMake does it (-rdc=true, libnvshmem_device.a).
#   scripts/nvshmem-suite.sh run OUT [gshmem|nvshmem]
#       run every built program (examples at EX_PES PEs, default 2, or 1
#       for those that pick GPU <node PE> when the machine has fewer
#       GPUs; perftests at their defaults at 2 PEs) with gshmemrun
#       (gshmem) or mpirun (nvshmem), RUN_TIMEOUT seconds each (default
#       120; ONLY=examples or perftests runs those only); writes
#       OUT/<lib>/run.csv: program,pes,status,seconds,check and each
#       program's output in OUT/<lib>/run/ (perftests with
#       NVSHMEM_MACHINE_READABLE_OUTPUT=1: "&&&& PERF" lines,
#       scripts/nvshmem_compare.py joins two libraries' runs).
#
# Environment: ONLY (examples or perftests: build only those), PROGRAMS
# (a space list of program names: build and run only those), ARCH
# (default sm_90), JOBS (parallel compiles, default nproc), EXTRA_CFLAGS
# (e.g. -I of an nvml.h where the CUDA toolkit lacks it), NVCC, MPICXX (default mpicxx; MPI examples are skipped without
# it), BUILD. Exit status: 0 when everything asked for built (build) or
# ran with status 0 (run), else 1.
set -u

usage() { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; }
[ $# -ge 2 ] || { usage >&2; exit 2; }
mode=$1 src=${2:-} out=${3:-}
case $mode in
build) lib=${4:-gshmem} ;;
run) out=$2 lib=${3:-gshmem} ;;
-h | --help) usage; exit 0 ;;
*) usage >&2; exit 2 ;;
esac
case $lib in gshmem | nvshmem) ;; *) echo "nvshmem-suite.sh: lib '$lib'?" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "$0")/.." && pwd)
arch=${ARCH:-sm_90}
jobs=${JOBS:-$(nproc)}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cuda_home=$(dirname "$(dirname "$nvcc")")
mpicxx=${MPICXX:-mpicxx}
build=${BUILD:-build}
case $build in /*) ;; *) build=$repo/$build ;; esac

# The programs: examples (MPI ones need mpi.h), then perftests.
EXAMPLES="collective-launch on-stream thread-group put-block dev-guide-ring ring-bcast ring-reduce"
EXAMPLES="$EXAMPLES moe_shuffle user-buffer shmem-based-init hello"   # one line each: matched by " name "
MPI_EXAMPLES="mpi-based-init uid-based-init dev-guide-ring-mpi"

# ---- build ----------------------------------------------------------------

# The source tree as files under $1 (a bare git directory is exported).
fetch_tree() {
    local dst=$1
    if [ -d "$src/examples" ]; then
        mkdir -p "$dst" && cp -r "$src/examples" "$src/perftest" "$dst/"
    elif git --git-dir="$src" rev-parse HEAD >/dev/null 2>&1; then
        mkdir -p "$dst" && git --git-dir="$src" archive HEAD examples perftest | tar -x -C "$dst"
    else
        echo "nvshmem-suite.sh: $src is neither an NVSHMEM tree nor its git directory" >&2
        exit 2
    fi
}

# Compile and link flags of each library.
lib_flags() {
    if [ "$lib" = gshmem ]; then
        [ -f "$build/libgshmem.so" ] || { echo "nvshmem-suite.sh: no $build/libgshmem.so" >&2; exit 2; }
        cflags="-I$repo/include"
        ldflags="-L$build -lgshmem -Xlinker -rpath=$build -lcuda"
    else
        local h=${NVSHMEM_HOME:?set NVSHMEM_HOME to NVSHMEM\'s include/ and lib/ parent}
        cflags="-rdc=true -I$h/include"
        ldflags="-rdc=true -L$h/lib -l:libnvshmem_host.so.3 -lnvshmem_device -Xlinker -rpath=$h/lib -lcuda"
    fi
}

# Seconds (one decimal) since $1 (date +%s%N).
ms_since() {
    local d=$(( ($(date +%s%N) - $1) / 100000000 ))
    echo "$((d / 10)).$((d % 10))"
}
export -f ms_since

# One program: compile_one NAME SOURCES... ; extra flags in $extra.
compile_one() {
    local name=$1 t0 rc
    shift
    t0=$(date +%s%N)
    # shellcheck disable=SC2086  # flag lists
    "$nvcc" -arch="$arch" -std=c++17 -O2 -x cu $cflags ${EXTRA_CFLAGS:-} $extra "$@" \
        -L"$cuda_home/lib64/stubs" $ldflags $extra_ld -o "$dir/bin/$name" \
        > "$dir/logs/$name.build.log" 2>&1
    rc=$?
    printf '%s,%d,%s\n' "$name" $((rc == 0)) "$(ms_since "$t0")" >> "$dir/build.csv.part"
    return 0
}
export -f compile_one

do_build() {
    local tree
    dir=$out/$lib
    rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/logs"
    tree=$dir/src
    fetch_tree "$tree"
    lib_flags
    local mpi_c="" mpi_l=""
    if command -v "$mpicxx" >/dev/null; then
        mpi_c=$("$mpicxx" --showme:compile)
        mpi_l=$("$mpicxx" --showme:link | sed 's/-Wl,/-Xlinker /g; s/-pthread//g')
    fi
    local only=${ONLY:-all} perf_mpi=""
    # NVSHMEM's perftests start through MPI (NVSHMEMTEST_USE_MPI_LAUNCHER):
    # its PMIx plugin need not match the machine's PMIx
    [ "$lib" = nvshmem ] && [ -n "$mpi_c" ] && perf_mpi="-DNVSHMEMTEST_MPI_SUPPORT $mpi_c"
    {
        [ "$only" = perftests ] || for e in $EXAMPLES; do
            local f=$tree/examples/$e.cu
            [ -f "$f" ] || f=$tree/examples/$e.cpp
            [ -f "$f" ] && echo "$e||$f"
        done
        if [ -n "$mpi_c" ] && [ "$only" != perftests ]; then
            for e in $MPI_EXAMPLES; do
                echo "$e|-DNVSHMEMTEST_MPI_SUPPORT $mpi_c|$tree/examples/$e.cu"
            done
        fi
        # the perftests NVSHMEM's own CMake builds (its lists name them)
        [ "$only" = examples ] || for d in pt-to-pt coll; do
            local pd=$tree/perftest/device/$d
            sed -n 's/^nvshmem_add_perftest(\(.*\)\.cu)/\1/p' "$pd/CMakeLists.txt" |
                while read -r t; do
                    echo "$t|-I$tree/perftest/common -I$pd $perf_mpi|$pd/$t.cu $tree/perftest/common/utils.cu"
                done
        done
    } | awk -F'|' -v want=" ${PROGRAMS:-} " 'want ~ /^ *$/ || index(want, " " $1 " ")' \
        > "$dir/programs.txt"
    echo "nvshmem-suite.sh: building $(wc -l < "$dir/programs.txt") programs against $lib" \
         "($jobs at a time)"
    export nvcc arch cflags ldflags dir cuda_home
    export MPI_LD=$mpi_l
    while IFS='|' read -r name flags files; do
        printf '%s\0%s\0%s\0' "$name" "$flags" "$files"
    done < "$dir/programs.txt" |
        xargs -0 -n 3 -P "$jobs" bash -c 'extra=$2 extra_ld=""
            case $extra in *NVSHMEMTEST_MPI*) extra_ld=$MPI_LD ;; esac
            compile_one "$1" $3' _
    echo "program,builds,seconds" > "$dir/build.csv"
    sort "$dir/build.csv.part" >> "$dir/build.csv" && rm -f "$dir/build.csv.part"
    local ok n
    n=$(($(wc -l < "$dir/build.csv") - 1))
    ok=$(awk -F, 'NR > 1 && $2 == 1' "$dir/build.csv" | wc -l)
    echo "nvshmem-suite.sh: $ok of $n built against $lib (logs: $dir/logs)"
    awk -F, 'NR > 1 && $2 == 0 { print "  FAILED: " $1 }' "$dir/build.csv"
    [ "$ok" = "$n" ]
}

# ---- run -------------------------------------------------------------------

do_run() {
    dir=$out/$lib
    [ -f "$dir/build.csv" ] || { echo "nvshmem-suite.sh: nothing built in $dir" >&2; exit 2; }
    mkdir -p "$dir/run"
    local n_gpu timeout=${RUN_TIMEOUT:-120} failed=0
    n_gpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    echo "program,pes,status,seconds,check" > "$dir/run.csv"
    local only=${ONLY:-all}
    while IFS=, read -r name ok _; do
        [ "$name" = program ] || [ "$ok" != 1 ] && continue
        local pes=2 t0 rc check launcher kind=perftests
        case " $EXAMPLES $MPI_EXAMPLES " in *" $name "*) kind=examples ;; esac
        [ "$only" = all ] || [ "$only" = "$kind" ] || continue
        [ -z "${PROGRAMS:-}" ] || case " $PROGRAMS " in *" $name "*) ;; *) continue ;; esac
        case $kind in
        examples)
            pes=${EX_PES:-2}
            # examples select GPU <node PE> (no modulo): as many PEs as GPUs
            [ "$n_gpu" -lt "$pes" ] && pes=$n_gpu ;;
        esac
        case " $MPI_EXAMPLES " in
        *" $name "*) launcher=mpi ;;
        *) launcher=$lib ;;
        esac
        t0=$(date +%s%N)
        # stdin from /dev/null: the launchers read it, and it is build.csv here
        if [ "$launcher" = gshmem ]; then
            NVSHMEM_MACHINE_READABLE_OUTPUT=1 timeout "$timeout" \
                "$build/tools/gshmemrun/gshmemrun" -n "$pes" "$dir/bin/$name" \
                < /dev/null > "$dir/run/$name.log" 2>&1
        else
            # under mpirun: the perftests of the NVSHMEM build (and the MPI
            # examples) start with nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM)
            timeout "$timeout" mpirun --allow-run-as-root --oversubscribe -np "$pes" \
                -x LD_LIBRARY_PATH -x NVSHMEM_MACHINE_READABLE_OUTPUT=1 \
                -x NVSHMEM_REMOTE_TRANSPORT=none -x NVSHMEM_DISABLE_NVLS=1 \
                -x NVSHMEMTEST_USE_MPI_LAUNCHER=1 "$dir/bin/$name" \
                < /dev/null > "$dir/run/$name.log" 2>&1
        fi
        rc=$?
        # the programs' own checks: an example prints its errors, a perftest its table
        check=ok
        grep -qiE "error|fail|mismatch|incorrect" "$dir/run/$name.log" && check=error-text
        [ "$rc" -ne 0 ] && failed=1
        printf '%s,%d,%d,%s,%s\n' "$name" "$pes" "$rc" "$(ms_since "$t0")" "$check" \
            >> "$dir/run.csv"
        echo "  $name ($pes PEs): status $rc, $check"
    done < "$dir/build.csv"
    return $failed
}

case $mode in
build) do_build ;;
run) do_run ;;
esac
