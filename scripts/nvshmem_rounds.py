#!/usr/bin/env python3
"""nvshmem_rounds.py: two rounds of scripts/nvshmem_compare.py's CSV (the
same perftests, both libraries, run twice), against their own spread.

    scripts/nvshmem_rounds.py ROUND1.csv ROUND2.csv

For each row in both rounds: the spread is the larger of the two
libraries' round-to-round ratios (max / min of a library's two values);
a row counts as "gshmem worse" when both rounds' gshmem_advantage is
below 1 / spread (so the gap is larger than the noise measured in the
same calls), "gshmem better" when both are above spread. Prints the
spread's median and 90th percentile per library, then per program the
rows compared, better, worse, within the noise, and the worse rows.
"""
import csv
import statistics
import sys
from collections import defaultdict


def load(path):
    with open(path) as fh:
        return {(r["program"], r["job"], r["scope"], int(r["bytes"]), r["metric"]): r
                for r in csv.DictReader(fh)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = load(sys.argv[1]), load(sys.argv[2])
    spreads = {"gshmem": [], "nvshmem": []}
    per = defaultdict(lambda: {"rows": 0, "better": 0, "worse": [], "noise": 0})
    for k in sorted(set(a) & set(b)):
        v = {lib: (float(a[k][lib]), float(b[k][lib])) for lib in spreads}
        if min(x for pair in v.values() for x in pair) <= 0:
            continue
        s = {lib: max(p) / min(p) for lib, p in v.items()}
        for lib in spreads:
            spreads[lib].append(s[lib])
        spread = max(s.values())
        adv = (float(a[k]["gshmem_advantage"]), float(b[k]["gshmem_advantage"]))
        p = per[k[0]]
        p["rows"] += 1
        if max(adv) < 1 / spread:
            p["worse"].append((k, adv, spread))
        elif min(adv) > spread:
            p["better"] += 1
        else:
            p["noise"] += 1
    for lib, s in spreads.items():
        s.sort()
        print("%s round-to-round ratio: median %.3f, p90 %.3f (%d rows)" %
              (lib, statistics.median(s), s[int(0.9 * (len(s) - 1))], len(s)))
    print("\n| program | rows | gshmem better | within the noise | gshmem worse |")
    print("|---|---|---|---|---|")
    for prog, p in sorted(per.items()):
        print("| %s | %d | %d | %d | %d |" % (prog, p["rows"], p["better"], p["noise"],
                                             len(p["worse"])))
    print("\ngshmem worse (program, job, scope, bytes, metric: advantage in rounds 1 and 2, "
          "spread):")
    for prog, p in sorted(per.items()):
        for k, adv, spread in p["worse"]:
            print("  %s %s %s %d %s: %.2f %.2f (spread %.2f)" % (k + adv + (spread,)))


if __name__ == "__main__":
    main()
