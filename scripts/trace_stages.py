#!/usr/bin/env python3
"""trace_stages.py PREFIX [-o CSV]: where a small put's latency goes.

Reads the GSHMEM_TRACE files of one job (PREFIX.<pe>.csv: pe,stage,ns; see
src/base/util/trace.h), merges the stamps of every PE in time order (the
PEs ran on one host: one clock), and for each pair of consecutive stamps
("0:take -> 0:exec": PE 0 took an entry, then PE 0 handed it over) prints
how often it occurred and the median and mean gap in microseconds, most
frequent first. In a latency loop (one request in flight) the frequent
pairs chain into the cycle: their medians add up to the time per put."""
import argparse
import csv
import glob
import statistics
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prefix")
    ap.add_argument("-o", "--csv", help="write the table as CSV here too")
    ap.add_argument("--skip", type=float, default=0.1,
                    help="fraction of the run to skip at the start (warm-up)")
    a = ap.parse_args()
    stamps = []
    for f in sorted(glob.glob(a.prefix + ".*.csv")):
        with open(f) as fh:
            for r in csv.DictReader(fh):
                stamps.append((int(r["ns"]), r["pe"] + ":" + r["stage"]))
    if len(stamps) < 2:
        sys.exit("trace_stages: no stamps under %s.*.csv" % a.prefix)
    stamps.sort()
    stamps = stamps[int(len(stamps) * a.skip):]
    gaps = {}
    for (t0, s0), (t1, s1) in zip(stamps, stamps[1:]):
        gaps.setdefault((s0, s1), []).append((t1 - t0) / 1000.0)
    rows = sorted(gaps.items(), key=lambda kv: -len(kv[1]))
    print("%-34s %8s %10s %10s" % ("from -> to", "count", "median_us", "mean_us"))
    out = []
    for (s0, s1), g in rows:
        med, mean = statistics.median(g), statistics.fmean(g)
        out.append((s0, s1, len(g), med, mean))
        if len(g) >= len(rows[0][1]) // 20:
            print("%-34s %8d %10.2f %10.2f" % (s0 + " -> " + s1, len(g), med, mean))
    if a.csv:
        with open(a.csv, "w") as fh:
            fh.write("from,to,count,median_us,mean_us\n")
            for r in out:
                fh.write("%s,%s,%d,%.3f,%.3f\n" % r)


if __name__ == "__main__":
    main()
