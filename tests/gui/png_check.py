#!/usr/bin/env python3
"""Checks that a PNG exists, is well formed (signature, IHDR, zlib-compressed IDAT of the right
size), has the expected size (optional), and is not blank: a uniform image compresses to
filtered rows of (almost) only zeros, so the decompressed stream of a real screenshot must hold
many distinct byte triples. Standard library only."""
import struct
import sys
import zlib


def main():
    path = sys.argv[1]
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos + 8 <= len(data):
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
    if len(raw) != h * (w * bpp + 1):
        raise SystemExit(f"{path}: {len(raw)} bytes of pixel data, expected {h * (w * bpp + 1)}")
    if len(sys.argv) > 3 and (w, h) != (int(sys.argv[2]), int(sys.argv[3])):
        raise SystemExit(f"{path}: size {w}x{h}, expected {sys.argv[2]}x{sys.argv[3]}")
    triples = {raw[i:i + 3] for i in range(0, len(raw) - 3, 61)}
    if len(triples) < 32:
        raise SystemExit(f"{path}: looks blank ({len(triples)} distinct byte triples)")
    print(f"{path}: {w}x{h}, {len(triples)} distinct byte triples (sampled)")


main()
