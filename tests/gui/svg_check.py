#!/usr/bin/env python3
"""Checks that a chart SVG parses as XML (xml.etree), is SVG 1.1 with a size, and is a chart:
a title, an axis title with a unit in parentheses, a legend and bars. Standard library only.
   svg_check.py FILE.svg [TEXT...]   (each TEXT must appear in some <text>)"""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main():
    path = sys.argv[1]
    root = ET.parse(path).getroot()
    if root.tag != NS + "svg" or root.get("version") != "1.1":
        raise SystemExit(f"{path}: not an SVG 1.1 document (root {root.tag}, version {root.get('version')})")
    if int(root.get("width", "0")) <= 0 or int(root.get("height", "0")) <= 0:
        raise SystemExit(f"{path}: no size")
    texts = ["".join(t.itertext()) for t in root.iter(NS + "text")]
    rects = list(root.iter(NS + "rect"))
    if root.find(NS + "title") is None or not texts:
        raise SystemExit(f"{path}: no title")
    if not any("(ms)" in t for t in texts):
        raise SystemExit(f"{path}: no axis title with a unit")
    if len(rects) < 10:
        raise SystemExit(f"{path}: only {len(rects)} rectangles: no bars")
    for want in sys.argv[2:]:
        if not any(want in t for t in texts):
            raise SystemExit(f"{path}: no text containing '{want}'")
    print(f"{path}: SVG 1.1, {len(texts)} texts, {len(rects)} rects; title '{texts[0]}'")


main()
