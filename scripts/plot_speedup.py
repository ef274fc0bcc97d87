#!/usr/bin/env python3
"""plot_speedup.py: the speedup per case of a gshmem-dlrm CSV (its --csv
file; run-main.sh writes one) as a bar chart in a PNG, with the Python
standard library only (zlib and struct write the PNG; a 3x5 pixel font
draws the text). One bar per case (blue: faster than the baseline, orange:
slower) with its value above it and its name (set, T, B, slice) below it,
the 1.0x baseline as a red dashed line, a y axis with ticks.

    scripts/plot_speedup.py CSV PNG
"""
import csv
import math
import struct
import sys
import zlib

WHITE, BLACK, GREY = (255, 255, 255), (0, 0, 0), (200, 200, 200)
FASTER, SLOWER, BASE = (31, 119, 180), (255, 127, 14), (214, 39, 40)
S = 2  # pixels per font pixel

# 3x5 glyphs, rows top to bottom, 3 bits each (4 = left column)
FONT = {
    "0": (7, 5, 5, 5, 7), "1": (2, 6, 2, 2, 7), "2": (7, 1, 7, 4, 7), "3": (7, 1, 7, 1, 7),
    "4": (5, 5, 7, 1, 1), "5": (7, 4, 7, 1, 7), "6": (7, 4, 7, 5, 7), "7": (7, 1, 1, 1, 1),
    "8": (7, 5, 7, 5, 7), "9": (7, 5, 7, 1, 7), ".": (0, 0, 0, 0, 2), "=": (0, 7, 0, 7, 0),
    "-": (0, 0, 7, 0, 0), "/": (1, 1, 2, 4, 4), "(": (2, 4, 4, 4, 2), ")": (2, 1, 1, 1, 2),
    ":": (0, 2, 0, 2, 0), " ": (0, 0, 0, 0, 0),
    "A": (2, 5, 7, 5, 5), "B": (6, 5, 6, 5, 6), "C": (3, 4, 4, 4, 3), "D": (6, 5, 5, 5, 6),
    "E": (7, 4, 6, 4, 7), "F": (7, 4, 6, 4, 4), "G": (3, 4, 5, 5, 3), "H": (5, 5, 7, 5, 5),
    "I": (7, 2, 2, 2, 7), "J": (1, 1, 1, 5, 2), "K": (5, 5, 6, 5, 5), "L": (4, 4, 4, 4, 7),
    "M": (5, 7, 7, 5, 5), "N": (6, 5, 5, 5, 5), "O": (2, 5, 5, 5, 2), "P": (6, 5, 6, 4, 4),
    "Q": (2, 5, 5, 6, 3), "R": (6, 5, 6, 5, 5), "S": (3, 4, 2, 1, 6), "T": (7, 2, 2, 2, 2),
    "U": (5, 5, 5, 5, 7), "V": (5, 5, 5, 5, 2), "W": (5, 5, 7, 7, 5), "X": (5, 5, 2, 5, 5),
    "Y": (5, 5, 2, 2, 2), "Z": (7, 1, 2, 4, 7), "_": (0, 0, 0, 0, 7),
}


class Image:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = [bytearray(WHITE * w) for _ in range(h)]

    def set(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            self.px[y][3 * x:3 * x + 3] = bytes(c)

    def rect(self, x0, y0, x1, y1, c):
        for y in range(max(0, y0), min(self.h, y1)):
            for x in range(max(0, x0), min(self.w, x1)):
                self.set(x, y, c)

    def text(self, x, y, s, c=BLACK, vertical=False):
        """s at (x, y), left to right, or bottom to top when vertical."""
        for i, ch in enumerate(s.upper()):
            rows = FONT.get(ch, FONT["-"])
            for r, bits in enumerate(rows):
                for col in range(3):
                    if bits & (4 >> col):
                        if vertical:  # rotated a quarter turn to the left
                            px, py = x + r * S, y - (i * 4 + col) * S
                        else:
                            px, py = x + (i * 4 + col) * S, y + r * S
                        self.rect(px, py, px + S, py + S, c)

    def png(self):
        raw = b"".join(b"\0" + bytes(row) for row in self.px)

        def chunk(kind, data):
            return (struct.pack(">I", len(data)) + kind + data +
                    struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
        return (b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def text_w(s):
    return len(s) * 4 * S


def read_cases(path):
    """(label, speedup) per CSV row; rows without a speedup are skipped."""
    cases = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                sp = float(row["speedup"])
            except (KeyError, ValueError):
                continue
            if not math.isfinite(sp):
                continue
            label = "%s T%s B%s S%s" % (row.get("set", "?"), row.get("T", "?"),
                                        row.get("B", "?"), row.get("slice", "?"))
            cases.append((label, sp))
    return cases


def nice_step(top):
    for step in (0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50):
        if top / step <= 8:
            return step
    return top / 5


def draw(cases):
    top = max([1.2] + [sp * 1.15 for _, sp in cases])
    step = nice_step(top)
    top = math.ceil(top / step) * step
    bar_w, gap = 28, 12
    label_h = max(text_w(l) for l, _ in cases) + 8
    left, right, top_m, plot_h = 60, 20, 40, 240
    w = max(360, left + right + len(cases) * (bar_w + gap) + gap)
    h = top_m + plot_h + label_h + 10
    img = Image(w, h)
    y0 = top_m + plot_h  # the axis line's row

    def y_of(v):
        return y0 - int(round(v / top * plot_h))
    img.text(left, 10, "SPEEDUP = BASELINE / FUSED PER CASE")
    k = 0
    while k * step <= top + 1e-9:
        v = k * step
        y = y_of(v)
        img.rect(left - 4, y, left, y + 1, BLACK)
        if v > 0:
            img.rect(left + 1, y, w - right, y + 1, GREY)
        t = ("%.2f" % v).rstrip("0").rstrip(".") if step < 1 else "%g" % v
        img.text(left - 8 - text_w(t), y - 5 * S // 2, t)
        k += 1
    for i, (label, sp) in enumerate(cases):
        x = left + gap + i * (bar_w + gap)
        img.rect(x, y_of(sp), x + bar_w, y0, FASTER if sp >= 1 else SLOWER)
        v = "%.2f" % sp
        img.text(x + (bar_w - text_w(v)) // 2, y_of(sp) - 6 * S, v)
        img.text(x + (bar_w - 5 * S) // 2, y0 + 6 + text_w(label), label, vertical=True)
    y1 = y_of(1.0)
    for x in range(left, w - right, 8):  # the baseline, dashed
        img.rect(x, y1 - 1, min(x + 5, w - right), y1 + 1, BASE)
    img.rect(left, top_m - 4, left + 1, y0 + 1, BLACK)
    img.rect(left, y0, w - right, y0 + 1, BLACK)
    return img


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: plot_speedup.py CSV PNG\n")
        return 2
    try:
        cases = read_cases(argv[1])
    except OSError as e:
        sys.stderr.write("plot_speedup.py: %s\n" % e)
        return 1
    if not cases:
        sys.stderr.write("plot_speedup.py: %s: no row with a speedup\n" % argv[1])
        return 1
    with open(argv[2], "wb") as f:
        f.write(draw(cases).png())
    sys.stderr.write("plot_speedup.py: %d case(s) -> %s\n" % (len(cases), argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
