#!/usr/bin/env python3
"""wave_model.py: a tile-level model of the MLP pair on one GPU, calibrated
from gshmem-stage-mlp's raw CSV, to tell what tile-granular sync can gain
at each M and what no schedule can.

    python3 apps/stage/wave_model.py mlp_raw.csv [-c 128x128x64s3] [-s 132]
                                      [-m 640,896] > model.md
    python3 apps/stage/wave_model.py --self-test    # prints PASS or exits 1

WHY A MODEL: the goal of >= 10 % less time than stream order at M = 256,
512 and 1024 was missed on the H200 by every policy and launch, and the
question is whether a better schedule could reach it or whether the tile
grid itself rules it out. The model answers that for the tile shapes the
program measures, and it is checked against the measured gains first.

What it models (numbers for the default shapes, 128x128 tiles, K1 = 12288,
K2 = 6144): GEMM1 has M/128 rows of 48 tiles, each one unit of work;
GEMM2 has M/128 rows of 96 tiles, each half a unit (half the K). An SM
holds two blocks (shared memory); a block alone on an SM runs at rate a, two
blocks on an SM at rate p each. Both come from the CSV: a from GEMM1 alone
at the largest M whose tiles fit one per SM (every block alone: the time of
one tile alone), p from GEMM1 alone at the largest M whose tiles fit two
per SM (its makespan is that of the SMs that hold two). A block that waits
costs its SM nothing (it sleeps). Blocks are placed first one per SM, then
on second slots, in launch order, each taking its tile from a counter in
row-major order (what the program's staged modes do).

Schedules:
  stream     GEMM2's blocks are placed only once GEMM1 is complete;
  row        GEMM2's blocks are placed as slots free, GEMM1's first (the
             producer's stream has the higher priority), and a GEMM2 block
             runs once every GEMM1 tile of its row is complete;
  tile       the same, but a GEMM2 block runs through as much of its K as
             the leading complete GEMM1 tiles of its row allow (the per-tile
             policy with gshmem_stage_wait_ahead);
  lone-first the row schedule with GEMM1's first rows on the SMs that hold
             one GEMM1 block (they finish first), an SM-aware order the
             program does not have: it shows whether such an order helps.

Bounds, for any schedule of these tiles (derivations in the README of the
results folder that uses this model):
  capacity   total work / (SMs x 2 p): every SM busy with two blocks until
             the end;
  first-row  no GEMM2 tile can start before some GEMM1 row is complete,
             which takes at least one tile time alone (1 / a); all of GEMM2
             is still to do then, and with more tiles than SMs some SM runs
             two of them (at least a pair's time).
The CSV's measured stream and best staged times (same tile configuration,
pdl or guard launch, best policy) stand next to the model's, so the reader
sees how well the model follows the GPU before trusting its bounds."""
import argparse
import csv
import sys
from collections import defaultdict

H, TP = 12288, 8
N1, K1, N2 = 4 * H // TP, H, H
EPS = 1e-9


class Model:
    def __init__(self, bm, bn, nsm, t_alone, t_pair):
        self.bm, self.bn, self.nsm = bm, bn, nsm
        self.a = 1.0 / t_alone    # GEMM1 tiles per us, one block on the SM
        self.p = 1.0 / t_pair     # per block, two blocks on the SM
        self.w2 = N1 / K1         # a GEMM2 tile's work in GEMM1 tiles (its K / GEMM1's K)
        self.g1x, self.g2x = N1 // bn, N2 // bn

    def run(self, M, sched):
        """Makespan in us of one schedule at M (rows of tiles: ceil(M / bm))."""
        rows = -(-M // self.bm)
        nsm, g1x = self.nsm, self.g1x
        q1 = [(r, x) for r in range(rows) for x in range(g1x)]
        q2 = [r for r in range(rows) for _ in range(self.g2x)]
        done1 = [[False] * g1x for _ in range(rows)]
        prefix = [0] * rows       # leading complete GEMM1 tiles of each row
        left1 = len(q1)
        sms = [[] for _ in range(nsm)]   # blocks: [kind, remaining, row, done]

        if sched == "lone-first":
            # the first wave: which SMs hold two GEMM1 blocks is known once
            # all are placed; the ones that hold one get the first tiles
            first = min(len(q1), 2 * nsm)
            per = [0] * nsm
            for i in range(first):
                per[i % nsm] += 1
            slots = sorted(range(first), key=lambda i: per[i % nsm] == 2)
            for i in slots:
                r, x = q1.pop(0)
                sms[i % nsm].append([1, 1.0, (r, x), 0.0])

        def cap(b):
            if b[0] == 1:
                return 1.0
            r = b[2]
            if sched == "tile":
                return self.w2 * prefix[r] / g1x
            return self.w2 if prefix[r] == g1x else 0.0

        def running(s):
            return [b for b in sms[s] if b[3] < cap(b) - EPS]

        def place():
            for k in (0, 1):
                for s in range(nsm):
                    if len(sms[s]) == k and q1:
                        sms[s].append([1, 1.0, q1.pop(0), 0.0])
            if q1 or (sched == "stream" and left1 > 0):
                return
            for k in (0, 1):
                for s in range(nsm):
                    if len(sms[s]) == k and q2:
                        sms[s].append([2, self.w2, q2.pop(0), 0.0])

        t = 0.0
        place()
        while True:
            dt = None
            for s in range(nsm):
                act = running(s)
                rate = self.a if len(act) == 1 else self.p
                for b in act:
                    d = (min(cap(b), b[1] + b[3]) - b[3]) / rate
                    dt = d if dt is None or d < dt else dt
            if dt is None:
                break
            t += dt
            finished = []
            for s in range(nsm):
                act = running(s)
                rate = self.a if len(act) == 1 else self.p
                for b in act:
                    b[3] += dt * rate
                    b[1] -= dt * rate
                    if b[1] <= EPS:
                        finished.append((s, b))
            for s, b in finished:
                sms[s] = [c for c in sms[s] if c is not b]
                if b[0] == 1:
                    left1 -= 1
                    r, x = b[2]
                    done1[r][x] = True
                    while prefix[r] < g1x and done1[r][prefix[r]]:
                        prefix[r] += 1
            place()
        if any(sms):
            raise RuntimeError("M %d, %s: blocks left waiting (model error)" % (M, sched))
        return t

    def bounds(self, M):
        rows = -(-M // self.bm)
        work = rows * (self.g1x + self.g2x * self.w2)
        capacity = work / (self.nsm * 2 * self.p)
        # first-row: every row of H needs all its GEMM1 tiles, none done
        # sooner than one tile alone (1 / a), so no GEMM2 tile starts before
        # that, and all of GEMM2 is left then: with more tiles than SMs some
        # SM runs two (a pair's time), and no SM does more than 2 p of work
        n2 = rows * self.g2x
        t2 = self.w2 / self.a if n2 <= self.nsm else self.w2 / self.p
        first_row = 1 / self.a + max(t2, n2 * self.w2 / (self.nsm * 2 * self.p))
        return capacity, first_row


def self_test():
    """Closed forms the schedules must reproduce (tile alone 200 us, two on
    an SM 300 us each, 132 SMs, 128x128 tiles; a GEMM2 tile is half a unit):
      M 128: 48 + 96 tiles, all alone: stream = 200 + 100;
      M 256: 96 tiles alone, then 192 (60 SMs hold two): 200 + 150;
      M 384: 144 tiles (12 SMs hold two) = 300, then 288 = 264 in pairs
             (150) and 24 alone (100): 550;
    and for every M: no staged schedule is slower than stream order (the
    staged blocks only ever start earlier), and neither bound exceeds any
    schedule's time. Returns the list of failures."""
    md = Model(128, 128, 132, 200.0, 300.0)
    bad = []
    for m, want in ((128, 300.0), (256, 350.0), (384, 550.0)):
        got = md.run(m, "stream")
        if abs(got - want) > 1e-6:
            bad.append("M %d: stream %.3f us, closed form %.3f" % (m, got, want))
    for m in (1, 128, 256, 384, 512, 768, 1024, 2048):
        st = md.run(m, "stream")
        times = {s: md.run(m, s) for s in ("row", "tile", "lone-first")}
        cap, fr = md.bounds(m)
        for s, v in times.items():
            if v > st + 1e-6:
                bad.append("M %d: %s %.3f us slower than stream %.3f" % (m, s, v, st))
            if cap > v + 1e-6 or fr > v + 1e-6:
                bad.append("M %d: a bound (%.3f, %.3f) above %s's %.3f us" % (m, cap, fr, s, v))
        if times["tile"] > times["row"] + 1e-6:
            bad.append("M %d: per-tile waits %.3f slower than per-row %.3f" %
                       (m, times["tile"], times["row"]))
    return bad


def load(path, cfg):
    t = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r["check"] == "ok" and float(r["median_us"]) > 0 and r["config"] == cfg:
            t[int(r["M"])][r["mode"]] = float(r["median_us"])
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="?")
    ap.add_argument("--self-test", action="store_true", help="check the model, print PASS")
    ap.add_argument("-c", "--config", default="128x128x64s3")
    ap.add_argument("-s", "--sms", type=int, default=132)
    ap.add_argument("-m", "--extra", default="", help="more M to predict, comma-separated")
    o = ap.parse_args()
    if o.self_test:
        bad = self_test()
        for b in bad:
            print("wave_model.py self-test: FAIL: " + b)
        print("wave_model.py self-test: " + ("FAIL" if bad else "PASS"))
        sys.exit(1 if bad else 0)
    if o.csv is None:
        ap.error("the CSV of gshmem-stage-mlp is needed (or --self-test)")
    bm, bn = (int(v) for v in o.config.split("x")[:2])
    t = load(o.csv, o.config)
    if not t:
        sys.exit("wave_model.py: no checked rows of configuration %s in %s" % (o.config, o.csv))
    g1x = N1 // bn
    alone = [m for m in t if -(-m // bm) * g1x <= o.sms and "gemm1_ours" in t[m]]
    pair = [m for m in t if o.sms < -(-m // bm) * g1x <= 2 * o.sms and "gemm1_ours" in t[m]]
    if not alone or not pair:
        sys.exit("wave_model.py: the CSV needs GEMM1 alone at an M whose %d-row tiles fit one "
                 "per SM and at one whose tiles fit two per SM (%d SMs)" % (bm, o.sms))
    ma, mp = max(alone), max(pair)
    md = Model(bm, bn, o.sms, t[ma]["gemm1_ours"], t[mp]["gemm1_ours"])
    print("Model of %s tiles on %d SMs: one GEMM1 tile alone %.1f us (GEMM1 alone at M %d), "
          "two on an SM %.1f us each (GEMM1 alone at M %d).\n" %
          (o.config, o.sms, 1 / md.a, ma, 1 / md.p, mp))
    print("| M | GEMM1 / GEMM2 tiles | measured stream | measured best staged | measured gain "
          "| model stream | model row | model tile | model lone-first | model best gain "
          "| capacity bound | first-row bound | most any schedule can gain |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    extra = [int(v) for v in o.extra.split(",") if v]
    for m in sorted(set(t) | set(extra)):
        rows = -(-m // bm)
        d = t.get(m, {})
        staged = [v for k, v in d.items() if k.startswith(("pdl_", "guard_")) and
                  k != "pdl_boundary"]
        ms = d.get("stream")
        mb = min(staged) if staged else None
        st = md.run(m, "stream")
        res = {s: md.run(m, s) for s in ("row", "tile", "lone-first")}
        best = min(res.values())
        cap, fr = md.bounds(m)
        lb = max(cap, fr or 0)

        def f(v):
            return "%.0f" % v if v is not None else "-"

        def g(a, b):
            return "%+.1f%%" % (100 * (1 - b / a)) if a and b else "-"
        print("| %d | %d / %d | %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %s | %.0f | %s | %s |" %
              (m, rows * g1x, rows * md.g2x, f(ms), f(mb), g(ms, mb), st, res["row"],
               res["tile"], res["lone-first"], g(st, best), cap, f(fr), g(st, lb)))


if __name__ == "__main__":
    main()
