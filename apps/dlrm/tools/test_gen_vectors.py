"""Sanity tests of gen_vectors.py, the plain-int DLRM generator reference.

The values themselves are compared with a C implementation of the contract
by tests/multipe/test_dlrm_tools.c; here: ranges, prefix sums, the printed
format, and lowbias32 against a second implementation (32-bit words by
ctypes, so no masking mistake can hide in both).
"""
import contextlib
import ctypes
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_vectors as gv  # noqa: E402


def lowbias32_ctypes(x):
    u = ctypes.c_uint32
    x = u(x).value
    x = u(x ^ (x >> 16)).value
    x = u(x * 0x7FEB352D).value
    x = u(x ^ (x >> 15)).value
    x = u(x * 0x846CA68B).value
    return u(x ^ (x >> 16)).value


class GenVectorsTest(unittest.TestCase):
    def test_lowbias32_second_implementation(self):
        for x in list(range(0, 1 << 32, 0x10001 * 977)) + [0xFFFFFFFF, 0x80000000]:
            self.assertEqual(gv.lowbias32(x), lowbias32_ctypes(x), x)
        self.assertEqual(gv.lowbias32(0), 0)
        self.assertNotEqual(gv.mix(1, 2), gv.mix(2, 1))

    def test_ranges_and_prefix_sums(self):
        recs = gv.vectors(1)
        off = {(r[1], r[2], r[3]): r[4] for r in recs if r[0] == "off"}
        for r in recs:
            if r[0] == "L":
                t, b, lmax, n = r[1:]
                self.assertTrue(1 <= n <= lmax, r)
                if (t, b + 1, lmax) in off:
                    self.assertEqual(off[(t, b + 1, lmax)], off[(t, b, lmax)] + n, r)
            elif r[0] == "idx":
                self.assertTrue(0 <= r[4] < r[3], r)
            elif r[0] == "w":
                self.assertTrue(0 <= r[5] < 1 << 24, r)
        self.assertEqual(gv.bag_len(1, 0, 5, 77, fixed=True), 77)
        self.assertNotEqual(gv.vectors(1), gv.vectors(2))

    def test_printed_format(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(gv.main(["--seed", "1"]), 0)
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), 1 + len(gv.vectors(1)))
        self.assertTrue(lines[0].startswith("seed 1 s_len %d " % gv.seeds(1)[0]))
        n_w = 0
        for ln in lines[1:]:
            f = ln.split()
            if f[0] == "w":
                t, r, d, dim, m = map(int, f[1:6])
                self.assertEqual(m, gv.weight_m(1, t, r, d, dim))
                self.assertEqual(float.fromhex(f[6]), m * 2.0 ** -24 - 0.5)
                self.assertEqual(float.fromhex(f[6]), gv.weight(1, t, r, d, dim))
                n_w += 1
            else:
                self.assertTrue(all(x.isdigit() for x in f[1:]), ln)
        self.assertGreater(n_w, 0)


if __name__ == "__main__":
    unittest.main()
