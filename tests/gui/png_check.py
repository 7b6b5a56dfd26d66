#!/usr/bin/env python3
"""Checks that a PNG exists, has the expected size (optional) and is not blank: decodes it with
zlib only (no imaging library) and requires many distinct pixel colours."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour type {ctype})")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    path = sys.argv[1]
    w, h, bpp, rows = decode(path)
    if len(sys.argv) > 3 and (w, h) != (int(sys.argv[2]), int(sys.argv[3])):
        raise SystemExit(f"{path}: size {w}x{h}, expected {sys.argv[2]}x{sys.argv[3]}")
    colours = set()
    for y in range(0, h, 4):
        r = rows[y]
        for x in range(0, w, 4):
            colours.add(r[x * bpp:x * bpp + 3])
    if len(colours) < 8:
        raise SystemExit(f"{path}: looks blank ({len(colours)} distinct colours)")
    print(f"{path}: {w}x{h}, {len(colours)} distinct colours (sampled)")


main()
