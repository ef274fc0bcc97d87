#!/usr/bin/env python3
"""dlrm_trace.py: post-process the raw trace of `gshmem-dlrm --trace RAW.csv`.

  dlrm_trace.py RAW.csv [--bucket-us 1] [--out PREFIX] [--plot cumulative|rate]
                [--remote-only]

RAW.csv (format: docs/dlrm-contract.md), header
  pe,mode,kind,slice,dst_pe,t_start_ns,t_end_ns,bytes
writes
  PREFIX_bytes.csv  mode,pe,t_us,bytes: bytes sent per bucket of --bucket-us
                    microseconds (t_us = bucket start). Each communication row
                    (kind slice or a2a) spreads its bytes uniformly over
                    [t_start, t_end); integer bytes, apportioned so that every
                    row's buckets add up to its bytes exactly (largest
                    remainders). Rows of kind compute/unpack carry no traffic.
                    Dense: every bucket from the first to the last of each
                    (mode, pe), zeros included.
  PREFIX.png        one panel per PE, x = time in us, fused and baseline in
                    two colors; y = cumulative MB sent (default) or bytes per
                    bucket (--plot rate). Same axes on every panel.
  PREFIX.json       Chrome/Perfetto trace: one "X" event per row, pid = pe,
                    tid = mode. Rows of one mode that overlap in time (slices
                    sent concurrently) go to numbered lanes of that mode
                    (thread names "fused", "fused 2", ...; tids 1000*m + lane),
                    since a viewer needs the events of one thread to nest.
--remote-only drops rows whose dst_pe is the sender (local copies) from
the bytes and the plot. PREFIX defaults to RAW.csv without ".csv".
Python 3.11 standard library only.
"""
import argparse
import csv
import heapq
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngplot  # noqa: E402

HEADER = ["pe", "mode", "kind", "slice", "dst_pe", "t_start_ns", "t_end_ns", "bytes"]
MODES = ("fused", "baseline")
KINDS = ("slice", "compute", "a2a", "unpack")
COMM_KINDS = ("slice", "a2a")
COLORS = {"fused": (214, 52, 36), "baseline": (24, 94, 190)}
MAX_BUCKETS = 5_000_000

# Plot layout (pixels); layout_size() gives the image size.
IMG_W, LEFT, RIGHT, TOP, PANEL_H, GAP, BOTTOM = 1000, 96, 24, 64, 200, 64, 8


class TraceError(Exception):
    """Bad input or arguments; the message names the file, line and field."""


def _int_field(path, lineno, name, text):
    try:
        return int(text)
    except ValueError:
        try:
            v = float(text)
        except ValueError:
            v = float("nan")
        if v != v or v in (float("inf"), float("-inf")):
            raise TraceError("%s line %d: field %s = %r is not a number"
                             % (path, lineno, name, text)) from None
        return int(round(v))


def read_raw(path):
    """Rows of RAW.csv as dicts with int fields; TraceError on bad input."""
    try:
        f = open(path, newline="")
    except OSError as e:
        raise TraceError("cannot open raw trace %s: %s" % (path, e.strerror)) from None
    rows = []
    with f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or [h.strip() for h in header] != HEADER:
            raise TraceError("%s line 1: header must be %s, got %s"
                             % (path, ",".join(HEADER), ",".join(header or ["<empty file>"])))
        for lineno, rec in enumerate(reader, start=2):
            if not rec or all(not x.strip() for x in rec):
                continue
            if len(rec) != len(HEADER):
                raise TraceError("%s line %d: %d fields, expected %d (%s)"
                                 % (path, lineno, len(rec), len(HEADER), ",".join(HEADER)))
            rec = [x.strip() for x in rec]
            r = {"mode": rec[1], "kind": rec[2], "line": lineno}
            for i in (0, 3, 4, 5, 6, 7):
                r[HEADER[i]] = _int_field(path, lineno, HEADER[i], rec[i])
            if r["mode"] not in MODES:
                raise TraceError("%s line %d: mode %r is not one of %s"
                                 % (path, lineno, r["mode"], "|".join(MODES)))
            if r["kind"] not in KINDS:
                raise TraceError("%s line %d: kind %r is not one of %s"
                                 % (path, lineno, r["kind"], "|".join(KINDS)))
            if r["pe"] < 0 or r["dst_pe"] < -1:
                raise TraceError("%s line %d: pe %d / dst_pe %d out of range"
                                 % (path, lineno, r["pe"], r["dst_pe"]))
            if r["t_end_ns"] < r["t_start_ns"]:
                raise TraceError("%s line %d: t_end_ns %d < t_start_ns %d"
                                 % (path, lineno, r["t_end_ns"], r["t_start_ns"]))
            if r["bytes"] < 0:
                raise TraceError("%s line %d: bytes %d < 0" % (path, lineno, r["bytes"]))
            rows.append(r)
    return rows


def is_traffic(r, remote_only):
    return r["kind"] in COMM_KINDS and not (remote_only and r["dst_pe"] == r["pe"])


def spread(t0, t1, nbytes, bucket_ns):
    """{bucket index: integer bytes} of nbytes spread uniformly over [t0, t1);
    the parts add up to nbytes exactly. A zero-length row is one bucket."""
    first = t0 // bucket_ns
    if t1 <= t0 or nbytes == 0:
        return {first: nbytes}
    last = (t1 - 1) // bucket_ns
    dur = t1 - t0
    parts, rems = {}, []
    for i in range(first, last + 1):
        ov = min(t1, (i + 1) * bucket_ns) - max(t0, i * bucket_ns)
        q, rem = divmod(nbytes * ov, dur)
        parts[i] = q
        rems.append((-rem, i))
    left = nbytes - sum(parts.values())
    for _, i in sorted(rems)[:left]:
        parts[i] += 1
    return parts


def bucket_bytes(rows, bucket_ns, remote_only=False):
    """{(mode, pe): {bucket: bytes}} over the traffic rows."""
    out = {}
    for r in rows:
        if not is_traffic(r, remote_only):
            continue
        span = (r["t_end_ns"] - r["t_start_ns"]) // bucket_ns
        if span > MAX_BUCKETS:
            raise TraceError("line %d spans %d buckets (> %d): use a larger --bucket-us"
                             % (r["line"], span, MAX_BUCKETS))
        acc = out.setdefault((r["mode"], r["pe"]), {})
        for i, b in spread(r["t_start_ns"], r["t_end_ns"], r["bytes"], bucket_ns).items():
            acc[i] = acc.get(i, 0) + b
    return out


def _fmt_us(v):
    s = "%.3f" % v
    return s.rstrip("0").rstrip(".") if "." in s else s


def dense_series(buckets):
    """[(bucket index, bytes)] from the first to the last bucket, zeros in between."""
    lo, hi = min(buckets), max(buckets)
    return [(i, buckets.get(i, 0)) for i in range(lo, hi + 1)]


def write_bytes_csv(path, bb, bucket_us):
    with open(path, "w", newline="") as f:
        f.write("mode,pe,t_us,bytes\n")
        for mode in MODES:
            for pe in sorted(p for m, p in bb if m == mode):
                for i, b in dense_series(bb[(mode, pe)]):
                    f.write("%s,%d,%s,%d\n" % (mode, pe, _fmt_us(i * bucket_us), b))


def chrome_events(rows):
    """Trace events: metadata ("M") and one "X" per row, with lanes."""
    events, lanes_used = [], {}
    for r in rows:
        r["_lane"] = None
    groups = {}
    for r in rows:
        groups.setdefault((r["pe"], r["mode"]), []).append(r)
    for (pe, mode), grp in sorted(groups.items()):
        grp.sort(key=lambda r: (r["t_start_ns"], r["t_end_ns"]))
        free, ends, n = [], [], 0   # free lanes (heap), (end, lane) heap
        for r in grp:
            while ends and ends[0][0] <= r["t_start_ns"]:
                heapq.heappush(free, heapq.heappop(ends)[1])
            lane = heapq.heappop(free) if free else n
            n = max(n, lane + 1)
            r["_lane"] = lane
            heapq.heappush(ends, (r["t_end_ns"], lane))
        lanes_used[(pe, mode)] = n
    for pe in sorted({r["pe"] for r in rows}):
        events.append({"name": "process_name", "ph": "M", "pid": pe, "tid": 0,
                       "args": {"name": "PE %d" % pe}})
    for (pe, mode), n in sorted(lanes_used.items()):
        m = MODES.index(mode)
        for lane in range(n):
            tid = 1000 * m + lane
            name = mode if lane == 0 else "%s %d" % (mode, lane + 1)
            events.append({"name": "thread_name", "ph": "M", "pid": pe, "tid": tid,
                           "args": {"name": name}})
            events.append({"name": "thread_sort_index", "ph": "M", "pid": pe, "tid": tid,
                           "args": {"sort_index": tid}})
    for r in rows:
        if r["kind"] == "slice":
            name = "slice %d -> PE %d" % (r["slice"], r["dst_pe"])
        elif r["dst_pe"] >= 0:
            name = "%s -> PE %d" % (r["kind"], r["dst_pe"])
        else:
            name = r["kind"]
        events.append({"name": name, "cat": r["kind"], "ph": "X",
                       "ts": r["t_start_ns"] / 1000.0,
                       "dur": (r["t_end_ns"] - r["t_start_ns"]) / 1000.0,
                       "pid": r["pe"], "tid": 1000 * MODES.index(r["mode"]) + r["_lane"],
                       "args": {"mode": r["mode"], "bytes": r["bytes"], "dst_pe": r["dst_pe"],
                                "slice": r["slice"]}})
    return events


def write_json(path, rows):
    with open(path, "w") as f:
        json.dump({"traceEvents": chrome_events(rows), "displayTimeUnit": "ns",
                   "otherData": {"source": "gshmem-dlrm --trace, dlrm_trace.py"}}, f)


def layout_size(n_panels):
    """(width, height) of the PNG for n_panels PEs."""
    return IMG_W, TOP + max(1, n_panels) * (PANEL_H + GAP) + BOTTOM


def _unit(vmax):
    for div, name in ((1e9, "GB"), (1e6, "MB"), (1e3, "KB")):
        if vmax >= div:
            return div, name
    return 1.0, "BYTES"


def plot_png(path, rows, bb, bucket_us, plot="cumulative"):
    """One panel per PE; returns (width, height)."""
    pes = sorted({r["pe"] for r in rows}) or [0]
    w, h = layout_size(len(pes))
    cv = pngplot.Canvas(w, h)
    bw = bucket_us
    # Curves in (us, bytes): cumulative at bucket ends, or per-bucket steps.
    curves = {}
    for key, bk in bb.items():
        ser = dense_series(bk)
        if plot == "cumulative":
            pts, acc = [(ser[0][0] * bw, 0)], 0
            for i, b in ser:
                acc += b
                pts.append(((i + 1) * bw, acc))
        else:
            pts = [(ser[0][0] * bw, 0)]
            for i, b in ser:
                pts += [(i * bw, b), ((i + 1) * bw, b)]
            pts.append(((ser[-1][0] + 1) * bw, 0))
        curves[key] = pts
    xs = [r["t_start_ns"] / 1000.0 for r in rows] + [r["t_end_ns"] / 1000.0 for r in rows]
    xs += [p[0] for pts in curves.values() for p in pts]
    xmin, xmax = min([0.0] + xs), max([1.0] + xs)
    ymax = pngplot.nice_ceil(max([0] + [p[1] for pts in curves.values() for p in pts]))
    div, uname = _unit(ymax)
    ylabel = ("%s SENT, CUMULATIVE" % uname if plot == "cumulative"
              else "%s SENT PER %s US BUCKET" % (uname, _fmt_us(bucket_us)))
    xticks, xdec = pngplot.nice_ticks(xmin, xmax, 8)
    yticks, ydec = pngplot.nice_ticks(0, ymax / div, 4)

    cv.text(LEFT, 10, "DLRM ALL-TO-ALL TRAFFIC PER PE: %s" % ylabel, pngplot.BLACK)
    x = LEFT
    for mode in MODES:
        cv.rect(x, 36, x + 15, 51, COLORS[mode])
        x = cv.text(x + 24, 37, mode, pngplot.BLACK) + 24
    cv.text(x + 16, 37, "X = TIME (US)", pngplot.GRAY)

    pw = w - LEFT - RIGHT
    for n, pe in enumerate(pes):
        top = TOP + n * (PANEL_H + GAP) + 24
        bot = top + PANEL_H - 1

        def px(v):
            return LEFT + (v - xmin) / (xmax - xmin) * (pw - 1)

        def py(v):
            return bot - v / ymax * (PANEL_H - 1)
        cv.text(LEFT, top - 20, "PE %d" % pe, pngplot.BLACK)
        for t in xticks:
            X = int(round(px(t)))
            cv.rect(X, top, X, bot, pngplot.LIGHT)
            s = ("%%.%df" % xdec) % t
            cv.text(X - pngplot.text_width(s) // 2, bot + 8, s, pngplot.GRAY)
        for t in yticks:
            Y = int(round(py(t * div)))
            cv.rect(LEFT, Y, LEFT + pw - 1, Y, pngplot.LIGHT)
            s = ("%%.%df" % ydec) % t
            cv.text(LEFT - 8 - pngplot.text_width(s), Y - 7, s, pngplot.GRAY)
        cv.frame(LEFT, top, LEFT + pw - 1, bot, pngplot.BLACK)
        for mode in MODES:
            pts = curves.get((mode, pe))
            if pts:
                cv.polyline([(px(a), py(b)) for a, b in pts], COLORS[mode], thick=2)
    with open(path, "wb") as f:
        f.write(cv.png())
    return w, h


def process(raw, out_prefix=None, bucket_us=1.0, plot="cumulative", remote_only=False):
    """RAW.csv -> PREFIX_bytes.csv, PREFIX.png, PREFIX.json; returns a summary."""
    bucket_ns = round(bucket_us * 1000)
    if not bucket_us > 0 or bucket_ns < 1 or abs(bucket_ns - bucket_us * 1000) > 1e-6:
        raise TraceError("--bucket-us %r must be a positive whole number of ns" % bucket_us)
    if plot not in ("cumulative", "rate"):
        raise TraceError("--plot %r must be cumulative or rate" % plot)
    if out_prefix is None:
        out_prefix = raw[:-4] if raw.endswith(".csv") else raw
    rows = read_raw(raw)
    bb = bucket_bytes(rows, bucket_ns, remote_only)
    files = {"bytes": out_prefix + "_bytes.csv", "png": out_prefix + ".png",
             "json": out_prefix + ".json"}
    write_bytes_csv(files["bytes"], bb, bucket_us)
    size = plot_png(files["png"], rows, bb, bucket_us, plot)
    write_json(files["json"], rows)
    totals = {k: sum(v.values()) for k, v in bb.items()}
    return {"rows": len(rows), "totals": totals, "files": files, "png_size": size}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("raw", help="raw trace CSV of gshmem-dlrm --trace")
    ap.add_argument("--bucket-us", type=float, default=1.0, help="bucket width in us (1)")
    ap.add_argument("--out", help="output prefix (default: RAW without .csv)")
    ap.add_argument("--plot", choices=["cumulative", "rate"], default="cumulative",
                    help="y axis: cumulative bytes sent, or bytes per bucket")
    ap.add_argument("--remote-only", action="store_true",
                    help="leave out rows whose dst_pe is the sending PE")
    args = ap.parse_args(argv)
    try:
        s = process(args.raw, args.out, args.bucket_us, args.plot, args.remote_only)
    except (TraceError, OSError) as e:
        print("dlrm_trace: %s" % e, file=sys.stderr)
        return 1
    print("dlrm_trace: %d rows of %s" % (s["rows"], args.raw))
    for (mode, pe), tot in sorted(s["totals"].items()):
        print("  %-8s PE %d: %d bytes sent" % (mode, pe, tot))
    for f in s["files"].values():
        print("  wrote %s" % f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
