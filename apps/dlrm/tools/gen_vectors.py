#!/usr/bin/env python3
"""gen_vectors.py: reference values of the DLRM input generator (pure Python).

The generator is defined in docs/dlrm-contract.md (counter-based
hash, all arithmetic on uint32 modulo 2^32). This file is its plain-int
reference: torch_baseline.py asserts (in --check) that its vectorised torch
generator reproduces these values, and the C side (gshmem-dlrm, the
Criterion test tests/multipe/test_dlrm_tools.c) compares its own
implementation against the printed lines.

Output, one value per line (integers in decimal, w also as the exact
C99/Python hex float that strtod/float.fromhex parse):
  seed SEED s_len S_LEN s_idx S_IDX s_w S_W
  lowbias32 X Y
  mix A B Y
  L T B LMAX L              random bag length L(t,b) (fixed mode: L = LMAX)
  off T B LMAX OFFSET       offsets[t][b], exclusive prefix sum of L(t,.)
  idx T K ROWS ROW          idx(t,k) for a table of ROWS rows
  w T R D DIM M HEX DEC     w(t,r,d) = M * 2^-24 - 0.5, M = mix(..) >> 8
Run: python3 gen_vectors.py [--seed N]   (default seed 1)
"""
import argparse
import sys

M32 = 0xFFFFFFFF


def lowbias32(x):
    x &= M32
    x ^= x >> 16
    x = (x * 0x7FEB352D) & M32
    x ^= x >> 15
    x = (x * 0x846CA68B) & M32
    x ^= x >> 16
    return x


def mix(a, b):
    return lowbias32((a & M32) ^ lowbias32(b))


def seeds(seed):
    """(s_len, s_idx, s_w) of a seed."""
    return (lowbias32(4 * seed + 1), lowbias32(4 * seed + 2), lowbias32(4 * seed + 3))


def bag_len(seed, t, b, lmax, fixed=False):
    if fixed:
        return lmax
    return 1 + ((mix(mix(seeds(seed)[0], t), b) * lmax) >> 32)


def index(seed, t, k, rows):
    return (mix(mix(seeds(seed)[1], t), k) * rows) >> 32


def weight_m(seed, t, r, d, dim):
    """The 24-bit integer M of w(t,r,d) = M * 2^-24 - 0.5 (exact in fp32)."""
    return mix(mix(seeds(seed)[2], t), (r * dim + d) & M32) >> 8


def weight(seed, t, r, d, dim):
    return weight_m(seed, t, r, d, dim) * 2.0 ** -24 - 0.5


# The points printed: a few tables, the first samples/positions, and rows
# near the end of W's (1e6) and G's (1e5) tables, and r*D+d at and past 2^32
# (it is taken mod 2^32).
LMAXES = (128, 32)
ROWS = (1000000, 100000, 1000)
W_POINTS = ((0, 0, 0, 64), (0, 0, 1, 64), (0, 1, 0, 64), (1, 0, 63, 64), (2, 999999, 63, 64),
            (3, 99999, 255, 256), (5, 16777215, 255, 256), (5, 16777216, 3, 256),
            (7, 123456, 7, 16))


def vectors(seed=1):
    """All reference records as tuples (kind, args..., value)."""
    out = []
    for x in (0, 1, 0x7FFFFFFF, 0xDEADBEEF, M32):
        out.append(("lowbias32", x, lowbias32(x)))
    for a, b in ((0, 0), (1, 2), (M32, 12345)):
        out.append(("mix", a, b, mix(a, b)))
    for lmax in LMAXES:
        for t in range(3):
            off = 0
            for b in range(8):
                out.append(("off", t, b, lmax, off))
                n = bag_len(seed, t, b, lmax)
                out.append(("L", t, b, lmax, n))
                off += n
    for rows in ROWS:
        for t in range(3):
            for k in (0, 1, 2, 3, 1000, 2097151):
                out.append(("idx", t, k, rows, index(seed, t, k, rows)))
    for t, r, d, dim in W_POINTS:
        out.append(("w", t, r, d, dim, weight_m(seed, t, r, d, dim)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description="print DLRM generator reference values")
    ap.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    args = ap.parse_args(argv)
    if args.seed < 0:
        ap.error("--seed must be >= 0")
    s = seeds(args.seed)
    lines = ["seed %d s_len %d s_idx %d s_w %d" % (args.seed, s[0], s[1], s[2])]
    for rec in vectors(args.seed):
        if rec[0] == "w":
            m = rec[-1]
            v = m * 2.0 ** -24 - 0.5
            lines.append("w %d %d %d %d %d %s %.9g" % (rec[1:] + (v.hex(), v)))
        else:
            lines.append(" ".join(str(x) for x in rec))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
