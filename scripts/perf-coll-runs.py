#!/usr/bin/env python3
"""perf-coll-runs.py: several runs of scripts/perf-coll.sh joined into one table.

    scripts/perf-coll-runs.py DIR [OUT.csv]

DIR holds one folder per run, each with the joined.csv perf-coll.sh wrote.
Per cell (transport, PEs, op, bytes): the median over the runs of gshmem's
and of MPI's time, their ratio, and the per-run ratios (on a machine whose
cores the PEs share, one run can sit in a slow mode for all its
iterations: the per-run ratios show it). Prints, per transport and PE
count, the largest ratio, the cells above 1.5x and the cells of at least
64 KiB above 1.2x (the goals of docs/BENCHMARKS.md section 1b), then the
barrier and sync cells; OUT.csv gets every cell.
"""
import csv
import glob
import statistics
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cells = {}
    for path in sorted(glob.glob(sys.argv[1] + "/*/joined.csv")):
        for r in csv.DictReader(open(path)):
            key = (r["transport"], int(r["P"]), r["op"], int(r["bytes"]))
            cells.setdefault(key, []).append((float(r["gshmem_us"]), float(r["mpi_us"])))
    if not cells:
        sys.exit("perf-coll-runs.py: no */joined.csv under " + sys.argv[1])
    out = open(sys.argv[2], "w", newline="") if len(sys.argv) > 2 else None
    w = csv.writer(out) if out else None
    if w:
        w.writerow(["transport", "P", "op", "bytes", "gshmem_us", "mpi_us", "ratio", "runs",
                    "run_ratios"])
    groups = {}
    for key, runs in sorted(cells.items()):
        g = statistics.median(a for a, _ in runs)
        m = statistics.median(b for _, b in runs)
        ratio = g / m
        per_run = " ".join("%.2f" % (a / b) for a, b in runs)
        if w:
            w.writerow(list(key) + ["%.3f" % g, "%.3f" % m, "%.2f" % ratio, len(runs), per_run])
        s = groups.setdefault(key[:2], {"n": 0, "max": None, "over": [], "big": []})
        s["n"] += 1
        if s["max"] is None or ratio > s["max"][0]:
            s["max"] = (ratio, key, g, m)
        if ratio > 1.5:
            s["over"].append("%s %d" % key[2:])
        if key[3] >= 65536 and ratio > 1.2:
            s["big"].append("%s %d" % key[2:])
    for (tp, pes), s in sorted(groups.items()):
        ratio, key, g, m = s["max"]
        print("%s %d PEs: %d cells, largest %.2f (%s %d B: %.2f vs %.2f us); > 1.5x: %d %s; "
              ">= 64 KiB > 1.2x: %d %s" % (tp, pes, s["n"], ratio, key[2], key[3], g, m,
                                            len(s["over"]), s["over"], len(s["big"]), s["big"]))
    for key, runs in sorted(cells.items()):
        if key[2] in ("barrier", "sync"):
            print("%s %d PEs %s: %.2f vs %.2f us, per run %s" % (
                key[0], key[1], key[2], statistics.median(a for a, _ in runs),
                statistics.median(b for _, b in runs),
                " ".join("%.2f" % (a / b) for a, b in runs)))


if __name__ == "__main__":
    main()
