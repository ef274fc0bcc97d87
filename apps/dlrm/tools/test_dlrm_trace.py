"""Unit tests of dlrm_trace.py on a synthetic raw trace (standard library only).

Run: python3 -m unittest discover -s apps/dlrm/tools -p 'test_*.py'
"""
import contextlib
import io
import json
import os
import struct
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dlrm_trace  # noqa: E402

HEADER = "pe,mode,kind,slice,dst_pe,t_start_ns,t_end_ns,bytes"


def synthetic_rows(P=3):
    """Rows of a 3-PE trace: overlapping fused slices (one zero-length, one
    spanning many buckets, odd byte counts, one to itself) and the four
    baseline phases."""
    rows = []
    for pe in range(P):
        for s in range(12):
            t0 = 1000 + 700 * s + 37 * pe
            rows.append((pe, "fused", "slice", s, (pe + 1 + s) % P, t0, t0 + 1333, 4097 + s))
        rows.append((pe, "fused", "slice", 12, pe, 5000, 5000, 999))        # instant, local
        rows.append((pe, "fused", "slice", 13, (pe + 1) % P, 100, 9100, 65537))
        rows.append((pe, "baseline", "compute", -1, -1, 0, 9000, 123))    # not traffic
        for d in range(P):
            rows.append((pe, "baseline", "a2a", -1, d, 9500, 15000 + 250 * d, 49152))
        rows.append((pe, "baseline", "unpack", -1, -1, 15800, 17000, 0))
    return rows


def write_raw(path, rows):
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")


def png_chunks(data):
    """[(tag, payload)] of a PNG; fails on a bad signature or CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "bad PNG signature"
    out, pos = [], 8
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        tag, payload = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(tag + payload) & 0xFFFFFFFF, "bad CRC in %r" % tag
        out.append((tag, payload))
        pos += 12 + n
    return out


class TraceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.raw = os.path.join(self.dir, "raw.csv")
        self.rows = synthetic_rows()
        write_raw(self.raw, self.rows)

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, *extra):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = dlrm_trace.main([self.raw, "--out", os.path.join(self.dir, "tr")] + list(extra))
        self.assertEqual(rc, 0, out.getvalue())
        return os.path.join(self.dir, "tr")

    def expected_totals(self, remote_only=False):
        tot = {}
        for pe, mode, kind, _s, dst, _t0, _t1, nbytes in self.rows:
            if kind in ("slice", "a2a") and not (remote_only and dst == pe):
                tot[(mode, pe)] = tot.get((mode, pe), 0) + nbytes
        return tot

    def read_bytes_csv(self, prefix):
        with open(prefix + "_bytes.csv") as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "mode,pe,t_us,bytes")
        series = {}
        for ln in lines[1:]:
            mode, pe, t_us, nbytes = ln.split(",")
            series.setdefault((mode, int(pe)), []).append((float(t_us), int(nbytes)))
        return series

    def test_bucket_sums_equal_total_bytes(self):
        for remote_only in (False, True):
            extra = ["--remote-only"] if remote_only else []
            series = self.read_bytes_csv(self.run_tool("--bucket-us", "0.5", *extra))
            want = self.expected_totals(remote_only)
            self.assertEqual(set(series), set(want))
            for key, pts in series.items():
                self.assertEqual(sum(b for _, b in pts), want[key], key)
                self.assertTrue(all(b >= 0 for _, b in pts), key)
                steps = {round(b[0] - a[0], 9) for a, b in zip(pts, pts[1:])}
                self.assertEqual(steps, {0.5}, "dense, consecutive buckets: %s" % (key,))

    def test_uniform_spread_is_exact(self):
        # [500, 2500) ns, 3000 bytes, 1 us buckets: 500/1000/500 ns of overlap.
        self.assertEqual(dlrm_trace.spread(500, 2500, 3000, 1000), {0: 750, 1: 1500, 2: 750})
        self.assertEqual(dlrm_trace.spread(5000, 5000, 7, 1000), {5: 7})
        parts = dlrm_trace.spread(1, 3000, 10, 1000)   # remainders apportioned
        self.assertEqual(sum(parts.values()), 10)
        self.assertEqual(sorted(parts), [0, 1, 2])

    def test_json_events(self):
        prefix = self.run_tool()
        with open(prefix + ".json") as f:
            doc = json.load(f)
        xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
        self.assertEqual(len(xs), len(self.rows))
        names = {}
        for e in doc["traceEvents"]:
            if e["ph"] == "M" and e["name"] == "thread_name":
                names[(e["pid"], e["tid"])] = e["args"]["name"]
        lanes = {}
        for e in xs:
            self.assertIsInstance(e["pid"], int)
            self.assertIsInstance(e["tid"], int)
            self.assertGreaterEqual(e["dur"], 0)
            self.assertTrue(names[(e["pid"], e["tid"])].startswith(e["args"]["mode"]))
            lanes.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
        for key, spans in lanes.items():   # events of one thread never overlap
            spans.sort()
            for a, b in zip(spans, spans[1:]):
                self.assertLessEqual(a[1], b[0] + 1e-9, key)
        total = sum(e["args"]["bytes"] for e in xs)
        self.assertEqual(total, sum(r[7] for r in self.rows))

    def test_png_valid(self):
        for plot in ("cumulative", "rate"):
            prefix = self.run_tool("--plot", plot)
            with open(prefix + ".png", "rb") as f:
                chunks = png_chunks(f.read())
            tags = [t for t, _ in chunks]
            self.assertEqual(tags[0], b"IHDR")
            self.assertEqual(tags[-1], b"IEND")
            w, h, depth, ctype, comp, filt, inter = struct.unpack(">IIBBBBB", chunks[0][1])
            self.assertEqual((w, h), dlrm_trace.layout_size(3))
            self.assertEqual((depth, ctype, comp, filt, inter), (8, 2, 0, 0, 0))
            raw = zlib.decompress(b"".join(p for t, p in chunks if t == b"IDAT"))
            self.assertEqual(len(raw), h * (1 + 3 * w))
            rgb = b"".join(raw[y * (1 + 3 * w) + 1:(y + 1) * (1 + 3 * w)] for y in range(h))
            self.assertTrue(all(raw[y * (1 + 3 * w)] == 0 for y in range(h)))
            for mode, c in dlrm_trace.COLORS.items():   # both curves drawn
                self.assertGreater(rgb.count(bytes(c)), 100, "%s curve in %s plot" % (mode, plot))

    def test_bad_input_is_named(self):
        cases = [
            ("pe,mode\n0,fused\n", "header"),
            (HEADER + "\n0,fused,slice,0,1,10,x,5\n", "line 2: field t_end_ns"),
            (HEADER + "\n0,fused,slice,0,1,10,5,5\n", "line 2: t_end_ns 5 < t_start_ns 10"),
            (HEADER + "\n0,fast,slice,0,1,10,20,5\n", "mode 'fast'"),
            (HEADER + "\n0,fused,send,0,1,10,20,5\n", "kind 'send'"),
            (HEADER + "\n0,fused,slice,0,1,10,20\n", "line 2: 7 fields"),
        ]
        for text, want in cases:
            with open(self.raw, "w") as f:
                f.write(text)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = dlrm_trace.main([self.raw, "--out", os.path.join(self.dir, "bad")])
            self.assertEqual(rc, 1, text)
            self.assertIn(want, err.getvalue())
        with self.assertRaises(dlrm_trace.TraceError):
            dlrm_trace.process(self.raw, bucket_us=0)


if __name__ == "__main__":
    unittest.main()
