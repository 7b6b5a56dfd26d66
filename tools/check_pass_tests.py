#!/usr/bin/env python3
"""Fails when a registered pass is named by no test.

Lists the passes the engine registers (`lowerscope-cli passes --names`, read from the
registries) and looks for each name, as a whole word, in the test sources under tests/
(*.cpp, *.h, *.py, *.lsscript). Every pass gets a focused test (docs/DESIGN.md); this keeps it so.
Usage: tools/check_pass_tests.py --cli build/dev/app/lowerscope-cli [--tests tests]
"""
import argparse
import os
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--tests", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
    args = ap.parse_args()
    out = subprocess.run([args.cli, "passes", "--names"], check=True, stdout=subprocess.PIPE, text=True).stdout
    names = [n.strip() for n in out.splitlines() if n.strip()]
    if not names:
        print("check_pass_tests: the CLI listed no passes", file=sys.stderr)
        return 1
    text = []
    for root, _, files in os.walk(args.tests):
        for f in files:
            if f.endswith((".cpp", ".h", ".py", ".lsscript")):
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                    text.append(fh.read())
    corpus = "\n".join(text)
    missing = [n for n in names if not re.search(r"\b" + re.escape(n) + r"\b", corpus)]
    print(f"check_pass_tests: {len(names) - len(missing)} of {len(names)} registered passes are named by a test")
    for n in missing:
        print(f"  no test names {n}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
