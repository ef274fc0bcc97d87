"""pngplot.py: a tiny RGB raster canvas and PNG writer (standard library only).

Just enough to draw line charts without matplotlib: filled rectangles,
thick lines, text in a built-in 5x7 font (upper case, digits, a little
punctuation), "nice" axis ticks, and an 8-bit RGB PNG encoder (zlib + CRC).
"""
import math
import struct
import zlib

# 5x7 glyphs, rows top to bottom, '#' lit. Lower-case text is drawn upper-case.
_GLYPHS = {
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "####. ....# ....# .###. ....# ....# ####.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "###.. #..#. #...# #...# #...# #..#. ###..",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    " ": "..... ..... ..... ..... ..... ..... .....",
    ".": "..... ..... ..... ..... ..... .##.. .##..",
    ",": "..... ..... ..... ..... .##.. ..#.. .#...",
    "-": "..... ..... ..... .###. ..... ..... .....",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
    "=": "..... ..... ##### ..... ##### ..... .....",
    "_": "..... ..... ..... ..... ..... ..... #####",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
    ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    ":": "..... .##.. .##.. ..... .##.. .##.. .....",
    "/": "....# ....# ...#. ..#.. .#... #.... #....",
    ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#...",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
}
GLYPH_W, GLYPH_H = 5, 7
_FONT = {c: [[i for i, ch in enumerate(row) if ch == "#"] for row in g.split()]
         for c, g in _GLYPHS.items()}

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GRAY = (120, 120, 120)
LIGHT = (225, 225, 225)


class Canvas:
    """RGB image, origin top-left; drawing outside it is clipped."""

    def __init__(self, width, height, bg=WHITE):
        if width <= 0 or height <= 0:
            raise ValueError("canvas %dx%d: both sides must be > 0" % (width, height))
        self.w, self.h = width, height
        self.buf = bytearray(bytes(bg) * (width * height))

    def pixel(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.buf[i:i + 3] = bytes(c)

    def get(self, x, y):
        i = (y * self.w + x) * 3
        return tuple(self.buf[i:i + 3])

    def rect(self, x0, y0, x1, y1, c):
        """Fills [x0, x1] x [y0, y1] (inclusive)."""
        x0, x1 = max(0, min(x0, x1)), min(self.w - 1, max(x0, x1))
        y0, y1 = max(0, min(y0, y1)), min(self.h - 1, max(y0, y1))
        if x0 > x1 or y0 > y1:
            return
        row = bytes(c) * (x1 - x0 + 1)
        for y in range(y0, y1 + 1):
            i = (y * self.w + x0) * 3
            self.buf[i:i + len(row)] = row

    def frame(self, x0, y0, x1, y1, c):
        self.rect(x0, y0, x1, y0, c)
        self.rect(x0, y1, x1, y1, c)
        self.rect(x0, y0, x0, y1, c)
        self.rect(x1, y0, x1, y1, c)

    def line(self, x0, y0, x1, y1, c, thick=1):
        """Bresenham line; thick > 1 stamps a thick x thick square per point."""
        x0, y0, x1, y1 = int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        lo = -(thick // 2)
        while True:
            if thick == 1:
                self.pixel(x0, y0, c)
            else:
                self.rect(x0 + lo, y0 + lo, x0 + lo + thick - 1, y0 + lo + thick - 1, c)
            if x0 == x1 and y0 == y1:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def polyline(self, pts, c, thick=1):
        prev = None
        for p in pts:
            q = (int(round(p[0])), int(round(p[1])))
            if prev is not None and q != prev:
                self.line(prev[0], prev[1], q[0], q[1], c, thick)
            elif prev is None:
                self.line(q[0], q[1], q[0], q[1], c, thick)
            prev = q

    def text(self, x, y, s, c, scale=2):
        """Draws s with its top-left corner at (x, y); returns the end x."""
        for ch in str(s).upper():
            rows = _FONT.get(ch, _FONT["?"])
            for r, cols in enumerate(rows):
                for col in cols:
                    self.rect(x + col * scale, y + r * scale, x + col * scale + scale - 1,
                              y + r * scale + scale - 1, c)
            x += (GLYPH_W + 1) * scale
        return x

    def png(self):
        return encode_png(self.w, self.h, self.buf)


def text_width(s, scale=2):
    return len(str(s)) * (GLYPH_W + 1) * scale - scale if s else 0


def _chunk(tag, data):
    return (struct.pack(">I", len(data)) + tag + data
            + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))


def encode_png(width, height, rgb):
    """8-bit RGB PNG of rgb (width*height*3 bytes, rows top to bottom)."""
    if len(rgb) != width * height * 3:
        raise ValueError("encode_png: %d bytes for %dx%d RGB" % (len(rgb), width, height))
    stride = width * 3
    raw = b"".join(b"\x00" + bytes(rgb[y * stride:(y + 1) * stride]) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(raw, 6))
            + _chunk(b"IEND", b""))


def nice_ticks(lo, hi, target=5):
    """Round tick values covering [lo, hi] (steps 1, 2 or 5 x 10^k), and
    the number of decimals that prints them exactly."""
    if not hi > lo:
        hi = lo + 1.0
    raw = (hi - lo) / target
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    decimals = max(0, -int(math.floor(math.log10(step) + 1e-9)))
    first = math.ceil(lo / step - 1e-9)
    ticks = []
    k = first
    while k * step <= hi + step * 1e-9:
        ticks.append(round(k * step, decimals))
        k += 1
    return ticks, decimals


def nice_ceil(v):
    """The smallest 1, 2, 2.5 or 5 x 10^k at or above v (> 0)."""
    if v <= 0:
        return 1.0
    mag = 10.0 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= v * (1 - 1e-12):
            return m * mag
    return 10 * mag
