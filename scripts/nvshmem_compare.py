#!/usr/bin/env python3
"""nvshmem_compare.py: NVSHMEM's perftests run against two libraries
(scripts/nvshmem-suite.sh run), side by side.

    scripts/nvshmem_compare.py SUITE_DIR OUT.csv [OUT.md]

Reads SUITE_DIR/{gshmem,nvshmem}/run/*.log, the perftests'
NVSHMEM_MACHINE_READABLE_OUTPUT lines
("&&&& PERF <job>___<scope>___size__<bytes>___<metric> <value> <+|-><unit>";
'+' means higher is better, '-' lower), and writes one row per
(program, job, scope, size, metric) found in both: both values and
gshmem's advantage (NVSHMEM / gshmem where lower is better, gshmem /
NVSHMEM where higher is: > 1 means gshmem is better), then each
library's build and run status per program (build.csv, run.csv).
"""
import csv
import os
import re
import sys

PERF = re.compile(r"^&&&& PERF (\S+?)___(\S*?)___size__(\d+)___(\S+) ([-0-9.e+]+) ([+-])(\S*)")


def perf_rows(d):
    rows = {}
    run = os.path.join(d, "run")
    if not os.path.isdir(run):
        return rows
    for f in sorted(os.listdir(run)):
        if not f.endswith(".log"):
            continue
        prog = f[:-4]
        with open(os.path.join(run, f), errors="replace") as fh:
            for line in fh:
                m = PERF.match(line.strip())
                if m:
                    job, scope, size, metric, value, sign, unit = m.groups()
                    rows[(prog, job, scope, int(size), metric)] = (float(value), sign, unit)
    return rows


def advantage(gv, nv, sign):
    """> 1: gshmem better ('-': lower is better)."""
    if gv <= 0 or nv <= 0:
        return float("nan")
    return nv / gv if sign == "-" else gv / nv


def table(path):
    out = {}
    if os.path.exists(path):
        with open(path) as fh:
            for r in csv.DictReader(fh):
                out[r["program"]] = r
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    suite, out_csv = sys.argv[1], sys.argv[2]
    g = perf_rows(os.path.join(suite, "gshmem"))
    n = perf_rows(os.path.join(suite, "nvshmem"))
    keys = sorted(set(g) & set(n))
    with open(out_csv, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["program", "job", "scope", "bytes", "metric", "unit", "gshmem", "nvshmem",
                    "gshmem_advantage"])
        for k in keys:
            gv, sign, unit = g[k]
            nv = n[k][0]
            adv = advantage(gv, nv, sign)
            w.writerow(list(k[:4]) + [k[4], unit, gv, nv, "%.3f" % adv])
    if len(sys.argv) > 3:
        progs = sorted(set(table(os.path.join(suite, "gshmem", "build.csv"))) |
                       set(table(os.path.join(suite, "nvshmem", "build.csv"))))
        with open(sys.argv[3], "w") as fh:
            fh.write("| program | gshmem builds | gshmem runs | NVSHMEM builds | NVSHMEM runs "
                     "| rows compared | gshmem advantage (min / median / max) |\n")
            fh.write("|---|---|---|---|---|---|---|\n")
            for p in progs:
                cells = []
                for lib in ("gshmem", "nvshmem"):
                    b = table(os.path.join(suite, lib, "build.csv")).get(p, {})
                    r = table(os.path.join(suite, lib, "run.csv")).get(p, {})
                    cells.append("yes" if b.get("builds") == "1" else "no" if b else "-")
                    cells.append(("ok" if r.get("status") == "0" and r.get("check") == "ok"
                                  else "status %s, %s" % (r.get("status"), r.get("check")))
                                 if r else "-")
                adv = sorted(advantage(g[k][0], n[k][0], g[k][1])
                             for k in keys if k[0] == p and g[k][0] > 0 and n[k][0] > 0)
                span = ("%.2f / %.2f / %.2f" % (adv[0], adv[len(adv) // 2], adv[-1])
                        if adv else "-")
                fh.write("| %s | %s | %d | %s |\n" % (p, " | ".join(cells), len(adv), span))
    print("nvshmem_compare: %d rows in both (gshmem %d, NVSHMEM %d)" % (len(keys), len(g),
                                                                        len(n)))


if __name__ == "__main__":
    main()
