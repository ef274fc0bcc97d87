#!/usr/bin/env bash
# The README's main job: gshmem-dlrm (fused DLRM embedding + all-to-all
# against the embedding-bag + all-to-all + unpack baseline) on the GPUs
# present, one PE per GPU, or on 4 CPU PEs where there is no GPU; every
# mode checked against an fp64 reference, then timed; prints the table on
# stdout, the progress on stderr (--quiet: none), and writes the table as
# CSV (BUILD_DIR/main.csv unless --csv FILE) and, with --plot FILE.png, the
# speedup per case as a bar chart (scripts/plot_speedup.py).
# --cpu: the CPU-PE job even where there are GPUs.
#   scripts/run-main.sh [BUILD_DIR] [--cpu] [--csv FILE] [--plot FILE.png] [--quiet]
#                       [extra gshmem-dlrm flags]
# Paths: BUILD_DIR from the source folder (as before), --csv and --plot
# from the caller's folder.
set -euo pipefail
here=$PWD
cd "$(dirname "$0")/.."
B=build
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  B=$1
  shift
fi
csv=$B/main.csv plot='' cpu=0 quiet=0 pass=()
while [ $# -gt 0 ]; do
  case $1 in
    --csv|--plot)
      if [ $# -lt 2 ] || [ -z "$2" ]; then echo "run-main.sh: $1 needs a file" >&2; exit 2; fi
      f=$2
      [ "${f#/}" != "$f" ] || f=$here/$f
      if [ "$1" = --csv ]; then csv=$f; else plot=$f; fi
      shift 2 ;;
    --cpu) cpu=1; shift ;;
    --quiet) quiet=1; pass+=("$1"); shift ;;
    *) pass+=("$1"); shift ;;
  esac
done
ngpu=0
if [ "$cpu" = 0 ] && command -v nvidia-smi >/dev/null 2>&1; then
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
fi
cuda=$(grep -c '^GSHMEM_ENABLE_CUDA:BOOL=ON' "$B/CMakeCache.txt" 2>/dev/null || true)
mkdir -p "$(dirname "$csv")" ${plot:+"$(dirname "$plot")"}
rm -f "$csv"   # gshmem-dlrm appends: this run's rows only
if [ "$ngpu" -gt 0 ] && [ "${cuda:-0}" -gt 0 ]; then
  # the machine's rules (GPU_MACHINE.md): no NVLink multicast; NCCL from
  # the Python environment when it is there
  export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
  py=$(python3 -c "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))" 2>/dev/null || true)
  [ -n "$py" ] && export LD_LIBRARY_PATH=$py/nvidia/nccl/lib:${LD_LIBRARY_PATH:-}
  echo "== gshmem-dlrm on $ngpu GPU(s) =="
  run=("$B/tools/gshmemrun/gshmemrun" -n "$ngpu" "$B/apps/dlrm/gshmem-dlrm"
       --config G --batch 4096 --tables-per-pe 64 --check)
else
  why="no GPU"
  [ "$ngpu" -eq 0 ] || why="no GPU support in this build"
  [ "$cpu" = 0 ] || why=--cpu
  echo "== gshmem-dlrm on 4 CPU PEs ($why) =="
  run=("$B/tools/gshmemrun/gshmemrun" -n 4 "$B/apps/dlrm/gshmem-dlrm" --config tiny --check
       --device cpu)
fi
rc=0
"${run[@]}" --csv "$csv" ${pass[@]+"${pass[@]}"} || rc=$?
[ "$quiet" = 1 ] || [ ! -s "$csv" ] || echo "table as CSV: $csv" >&2
if [ -n "$plot" ] && [ -s "$csv" ]; then
  python3 scripts/plot_speedup.py "$csv" "$plot" || { [ "$rc" -ne 0 ] || rc=1; }
fi
exit "$rc"
