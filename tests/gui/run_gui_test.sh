#!/bin/sh
# GUI screenshot test under Xvfb: runs lowerscope with a --script and --screenshot, then checks
# the PNG (and any extra files the script must write) exist and are not blank; an .svg must
# parse as an SVG 1.1 chart (svg_check.py).
#   run_gui_test.sh LOWERSCOPE SCRIPT OUT_DIR NAME [EXPECTED_FILE...]
set -eu
bin=$1; script=$2; out=$3; name=$4; shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cd "$out"
rm -f "$name.png" "$@"
# Fixture for the corrupt-file test: bytes with the trace identifier but a broken body.
printf 'xxxxLST1garbage-not-a-flatbuffer' > corrupt.lstrace
# The script's relative paths resolve against the script's directory.
xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --script "$script" --screenshot "$name.png" --size 1600x1000 --timeout 90
python3 "$here/png_check.py" "$name.png" 1600 1000
for f in "$@"; do
  test -s "$f" || { echo "missing or empty: $f"; exit 1; }
  case "$f" in
    *.png) python3 "$here/png_check.py" "$f" ;;
    *.svg) python3 "$here/svg_check.py" "$f" ;;
  esac
done
echo "ok: $name"
