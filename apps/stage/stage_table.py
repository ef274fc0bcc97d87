#!/usr/bin/env python3
"""stage_table.py: the markdown table of gshmem-stage-mlp's raw CSV.

    python3 apps/stage/stage_table.py mlp_raw.csv > table.md

Per M: the stream-ordered baseline at its fastest tile configuration, the
PDL kernel boundary, and each policy at its fastest (tile configuration x
launch: pdl or guard), each with the configuration that gave it; the gain of
the best policy as time saved over the stream baseline; gshmem's GEMMs and
cuBLAS in TFLOP/s. Only rows whose check passed count. A second table: the
serial diagnostics (staged kernels without overlap) against stream with the
same tiles. The shapes follow
the program's defaults (hidden 12288, tp 8)."""
import csv
import sys
from collections import defaultdict

H, TP = 12288, 8
N1, K1, N2 = 4 * H // TP, H, H
POLICIES = ["tile", "row", "strided", "user"]


def main(path):
    t = defaultdict(dict)   # (M, config) -> mode -> median us
    for r in csv.DictReader(open(path)):
        if r["check"] == "ok" and float(r["median_us"]) > 0:
            t[(int(r["M"]), r["config"])][r["mode"]] = float(r["median_us"])
    ms = sorted({m for m, _ in t})

    def best(m, modes):
        cands = [(d[mode], cfg, mode) for (mm, cfg), d in t.items() if mm == m
                 for mode in modes if mode in d and cfg != "cublas"]
        return min(cands) if cands else None

    out = ["| M | stream (best tiles) | pdl boundary | " +
           " | ".join(POLICIES) + " | best gain | gshmem GEMM1/GEMM2 TFLOP/s | "
           "cuBLAS GEMM1/GEMM2 TFLOP/s |",
           "|---:|---|---|" + "---|" * len(POLICIES) + "---:|---|---|"]
    for m in ms:
        s = best(m, ["stream"])
        if s is None:
            continue
        b = best(m, ["pdl_boundary"])
        cells, gains = [], []
        for p in POLICIES:
            x = best(m, ["pdl_" + p, "guard_" + p])
            if x is None:
                cells.append("n/a")
                continue
            cells.append("%.1f (%s, %s)" % (x[0], x[2].split("_")[0], x[1]))
            gains.append((1 - x[0] / s[0]) * 100)
        f1, f2 = 2.0 * m * N1 * K1, 2.0 * m * N2 * N1
        g = t.get((m, s[1]), {})
        cb = t.get((m, "cublas"), {})
        ours = "%.0f / %.0f" % (f1 / g["gemm1_ours"] * 1e-6, f2 / g["gemm2_ours"] * 1e-6) \
            if "gemm1_ours" in g and "gemm2_ours" in g else "n/a"
        theirs = "%.0f / %.0f" % (f1 / cb["gemm1_cublas"] * 1e-6,
                                  f2 / cb["gemm2_cublas"] * 1e-6) \
            if "gemm1_cublas" in cb and "gemm2_cublas" in cb else "n/a"
        out.append("| %d | %.1f (%s) | %s | %s | %+.1f%% | %s | %s |" % (
            m, s[0], s[1], "%.1f" % b[0] if b else "n/a", " | ".join(cells),
            max(gains) if gains else float("nan"), ours, theirs))
    print("\n".join(out))
    # What the staged kernels cost by themselves: the serial diagnostics
    # (the same kernels in plain stream order, nothing overlapping) against
    # stream with the same tile configuration, in %, median over the M.
    diag = ["serial_counter", "serial_post", "serial_row"]
    cfgs = sorted({c for _, c in t if c != "cublas"})
    rows, seen = [], False
    for c in cfgs:
        cells = []
        for d in diag:
            v = sorted(100 * (t[(m, c)][d] / t[(m, c)]["stream"] - 1) for m in ms
                       if d in t.get((m, c), {}) and "stream" in t.get((m, c), {}))
            cells.append("%+.1f%% (%d)" % (v[len(v) // 2], len(v)) if v else "n/a")
            seen = seen or bool(v)
        rows.append("| %s | %s |" % (c, " | ".join(cells)))
    if seen:
        print("\nStaged kernels in stream order (no overlap) vs stream, same tiles: "
              "median over M (number of M)\n")
        print("| tiles | " + " | ".join(diag) + " |")
        print("|---|" + "---:|" * len(diag))
        print("\n".join(rows))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: stage_table.py mlp_raw.csv")
    main(sys.argv[1])
