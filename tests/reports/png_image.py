"""Minimal PNG reading and writing (8-bit RGB/RGBA, not interlaced: what
Chromium's screenshots are), so the report tests need nothing beyond the
standard library: pixel statistics for the non-blank check, and crops of a
long page to look at one section at a time."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Image:
    width: int
    height: int
    channels: int
    rows: list[bytes]  # unfiltered scanlines

    def crop(self, top: int, height: int) -> Image:
        return Image(
            self.width, min(height, self.height - top), self.channels, self.rows[top : top + height]
        )

    def luminance_stats(self, step: int = 2) -> tuple[float, float]:
        """Mean and variance of the pixels' luminance (0-255), sampling every `step`th pixel."""
        total = 0.0
        squares = 0.0
        count = 0
        c = self.channels
        for y in range(0, self.height, step):
            row = self.rows[y]
            for x in range(0, self.width, step):
                r, g, b = row[x * c], row[x * c + 1], row[x * c + 2]
                v = 0.299 * r + 0.587 * g + 0.114 * b
                total += v
                squares += v * v
                count += 1
        mean = total / count
        return mean, squares / count - mean * mean

    def distinct_colours(self, step: int = 3) -> int:
        c = self.channels
        seen = set()
        for y in range(0, self.height, step):
            row = self.rows[y]
            for x in range(0, self.width, step):
                seen.add(bytes(row[x * c : x * c + 3]))
        return len(seen)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path: str | Path) -> Image:
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file")
    pos = 8
    idat = bytearray()
    width = height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs are read here")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(bytes(idat))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    offset = 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1 : offset + 1 + stride])
        offset += 1 + stride
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up_left = previous[i - channels] if i >= channels else 0
                line[i] = (line[i] + _paeth(left, previous[i], up_left)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return Image(width, height, channels, rows)


def write_png(image: Image, path: str | Path) -> None:
    raw = b"".join(b"\x00" + row for row in image.rows)
    colour = 2 if image.channels == 3 else 6

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", image.width, image.height, 8, colour, 0, 0, 0)
    Path(path).write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    import sys

    # png_image.py IN.png OUT.png TOP HEIGHT: crop a band of a long screenshot to look at.
    source = read_png(sys.argv[1])
    write_png(source.crop(int(sys.argv[3]), int(sys.argv[4])), sys.argv[2])
