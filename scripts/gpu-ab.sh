#!/usr/bin/env bash
# gpu-ab.sh BUILD_DIR BASE_DIR [VARIANT_DIR...]: the P2P device benchmarks
# of a change, A/B in one run on the same 2 GPUs: gshmem-perf-dev-put-latency,
# -put-bw and -signal-pingpong from BASE_DIR (binaries of the code before the
# change, e.g. .gpu/base; with BASE_DIR/lib/libgshmem.so.0 the library
# before it too, else BUILD_DIR's), from BUILD_DIR ("new") and from each
# VARIANT_DIR (named by its folder; binaries built with another setting of a
# device-side knob, or of another commit with VARIANT_DIR/lib/libgshmem.so.0
# beside them; else BUILD_DIR's library; a benchmark missing there is
# skipped), interleaved (base, new, variants, base, new, ...) so that drift
# shows; then a table of the medians, each / base. Each run checks its data
# first. Output in $OUT/ab (or /tmp/gshmem-gpu-ab): logs/, csv/, table.md.
# GPU_AB_ROUNDS (2) sets the interleaving, GPU_AB_BENCH (all three) which
# benchmarks run, GPU_AB_PUTBW put-bw's flags (-b 4K -e 4M -n 20 -w 3);
# GPU_AB_SASS=1 also dumps each one's kernels' SASS (cuobjdump) to sass/;
# GPU_AB_NVSHMEM=DIR adds NVSHMEM's programs from DIR (nvshmem-perf-*, as
# scripts/perf-device.sh builds them, e.g. /tmp/build-nvshmem) as one more
# column, "nvshmem", interleaved with the others.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:?usage: gpu-ab.sh BUILD_DIR BASE_DIR [VARIANT_DIR...]}
BASE=${2:?usage: gpu-ab.sh BUILD_DIR BASE_DIR [VARIANT_DIR...]}
shift 2
declare -A vdir=([base]=$BASE [new]=$B/apps/perf/device)
names=(base new)
for v in "$@"; do
  n=$(basename "$v")
  [ -z "${vdir[$n]:-}" ] || { echo "gpu-ab: variant $v: the name $n is taken (base, new or an earlier variant)" >&2; exit 2; }
  names+=("$n"); vdir[$n]=$v
done
[ -n "${GPU_AB_NVSHMEM:-}" ] && { names+=(nvshmem); vdir[nvshmem]=$GPU_AB_NVSHMEM; }
OUT=${OUT:-/tmp/gshmem-gpu-ab}/ab
mkdir -p "$OUT/csv"
. scripts/gpu-env.sh "$B"
L="$B/tools/gshmemrun/gshmemrun"
status=0
declare -A flags=([put-latency]="-b 8 -e 64K -n 30 -w 3 -r 50"
                  [put-bw]="${GPU_AB_PUTBW:--b 4K -e 4M -n 20 -w 3}"
                  [signal-pingpong]="-b 8 -e 64 -n 50 -w 5 -r 1000")
for r in $(seq 1 "${GPU_AB_ROUNDS:-2}"); do
  for bench in ${GPU_AB_BENCH:-put-latency put-bw signal-pingpong}; do
    for v in "${names[@]}"; do
      dir=${vdir[$v]}
      if [ $v = nvshmem ]; then
        [ -x "$dir/nvshmem-perf-$bench" ] || continue
        # shellcheck disable=SC2086
        gpu_run "$bench-$v-$r" 300 env LD_LIBRARY_PATH="$gpu_env_nvshmem/lib:$LD_LIBRARY_PATH" \
          "${gpu_nvshmem_mpirun[@]}" "$dir/nvshmem-perf-$bench" ${flags[$bench]} \
          -o "$OUT/csv/$bench-$v-$r.csv"
        continue
      fi
      [ -x "$dir/gshmem-perf-dev-$bench" ] || continue
      lib=$LD_LIBRARY_PATH
      [ $v != new ] && [ -e "$dir/lib/libgshmem.so.0" ] && lib=$(cd "$dir/lib" && pwd):$lib
      # shellcheck disable=SC2086
      gpu_run "$bench-$v-$r" 300 env LD_LIBRARY_PATH="$lib" GSHMEM_HEAP=cuda "$L" -n 2 \
        "$dir/gshmem-perf-dev-$bench" ${flags[$bench]} -o "$OUT/csv/$bench-$v-$r.csv"
    done
  done
done
if [ "${GPU_AB_SASS:-0}" = 1 ]; then
  mkdir -p "$OUT/sass"
  for v in "${names[@]}"; do
    for bench in ${GPU_AB_BENCH:-put-latency put-bw signal-pingpong}; do
      f=${vdir[$v]}/gshmem-perf-dev-$bench
      [ $v = nvshmem ] && f=${vdir[$v]}/nvshmem-perf-$bench
      [ -x "$f" ] && cuobjdump -sass "$f" >"$OUT/sass/$bench-$v.txt" 2>&1
    done
  done
fi
python3 - "$OUT/csv" "${names[@]}" <<'PY' | tee "$OUT/table.md"
import csv, glob, os, statistics, sys
d, names = sys.argv[1], sys.argv[2:]
def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))
others = names[1:]
print("| benchmark | column | size | base | " + " | ".join(f"{v} | {v} / base" for v in others) + " |")
print("|---|---|---|---|" + "---|---|" * len(others))
for bench, cols in (("put-latency", ["median(us)"]), ("put-bw", ["block(GB/s)", "grid(GB/s)"]), ("put-latency", ["raw_sc(us)"]),
                    ("signal-pingpong", ["median(us)"])):
    runs = {v: [load(p) for p in sorted(glob.glob(os.path.join(d, f"{bench}-{v}-*.csv")))]
            for v in names}
    if not runs["base"]:
        continue
    for col in cols:
        if col not in runs["base"][0][0]:
            continue
        for i, row in enumerate(runs["base"][0]):
            size = row.get("size(B)", "?")
            b = statistics.median(float(r[i][col]) for r in runs["base"])
            cells = []
            for v in others:
                if not runs[v]:
                    cells.append("- | -")
                    continue
                n = statistics.median(float(r[i][col]) for r in runs[v])
                cells.append(f"{n:.3f} | {n / b:.2f}")
            print(f"| {bench} | {col} | {size} | {b:.3f} | " + " | ".join(cells) + " |")
PY
exit $status
