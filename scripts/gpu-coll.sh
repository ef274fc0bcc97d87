#!/usr/bin/env bash
# gpu-coll.sh [BUILD_DIR]: the team collectives beside NCCL on a GPU
# machine (docs/BENCHMARKS.md, team collectives), one call, one archive
# $OUT/gpu-coll.tgz (or under /tmp/gshmem-gpu-coll): for P = 2 and, when
# the machine has them, 4 GPUs: gshmem-perf-dev-coll (all-reduce,
# broadcast, fcollect over GSHMEM_TEAM_WORLD) in each form of
# GPU_COLL_FORMS ("stream block": the on-stream calls, and the device
# calls' block forms in one block of the benchmark's kernel) and
# scripts/nccl_coll.py (NCCL's all_reduce, broadcast, all_gather) over the
# same sizes, then one table per form and P with the ratio NCCL time /
# gshmem time (> 1: gshmem faster). GPU_COLL_MAX (256M), GPU_COLL_FACTOR
# (2), GPU_COLL_ITERS (20) set the sweep; GPU_COLL_PS ("2 4") the PE counts.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
FINAL=${OUT:-/tmp/gshmem-gpu-coll}
OUT=$(mktemp -d)
mkdir -p "$OUT/logs" "$OUT/csv" "$FINAL"
. scripts/gpu-env.sh "$B"
L="$B/tools/gshmemrun/gshmemrun"
status=0
nvidia-smi -L | tee "$OUT/gpus.txt"
git rev-parse HEAD 2>/dev/null | sed 's/^/commit /' | tee -a "$OUT/gpus.txt"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
MAX=${GPU_COLL_MAX:-256M} F=${GPU_COLL_FACTOR:-2} N=${GPU_COLL_ITERS:-20}
for p in ${GPU_COLL_PS:-2 4}; do
  [ "$p" -le "$ngpu" ] || continue
  gpu_run "nccl-p$p" 300 python3 scripts/nccl_coll.py -p $p -b 8 -e "$MAX" -f "$F" -n "$N" -w 3 \
    -o "$OUT/csv/nccl-p$p.csv"
  for form in ${GPU_COLL_FORMS:-stream block}; do
    gpu_run "gshmem-$form-p$p" 300 env GSHMEM_HEAP=cuda "$L" -n $p \
      "$B/apps/perf/device/gshmem-perf-dev-coll" -F "$form" \
      -b 8 -e "$MAX" -f "$F" -n "$N" -w 3 -P $p -o "$OUT/csv/gshmem-$form-p$p.csv"
    t="$OUT/table-$form-p$p.md"
    python3 - "$OUT/csv/gshmem-$form-p$p.csv" "$OUT/csv/nccl-p$p.csv" "$p" "$form" <<'PY' | tee "$t"
import csv, sys
def rows(path):
    try:
        with open(path) as f:
            return {(int(r["size(B)"]), int(float(r["op"]))): float(r["median(us)"])
                    for r in csv.DictReader(f)}
    except (OSError, KeyError, ValueError):
        return {}
g, n = rows(sys.argv[1]), rows(sys.argv[2])
names = {0: "all-reduce", 1: "broadcast", 2: "fcollect"}
print("P = %s, gshmem form: %s\n\n| op | size | gshmem us | NCCL us | NCCL / gshmem |\n|---|---|---|---|---|"
      % (sys.argv[3], sys.argv[4]))
for (s, op) in sorted(g, key=lambda k: (k[1], k[0])):
    if (s, op) in n:
        print("| %s | %d | %.2f | %.2f | %.2f |" % (names[op], s, g[(s, op)], n[(s, op)],
                                                   n[(s, op)] / g[(s, op)]))
PY
  done
done
tar -czf "$FINAL/gpu-coll.tgz" -C "$OUT" logs csv gpus.txt $(cd "$OUT" && ls table-*.md 2>/dev/null)
exit $status
