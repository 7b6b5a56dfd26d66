#!/bin/sh
# GUI regression test under Xvfb: replays a reduced script the action fuzzer
# (tools/gui_action_fuzz.py) once crashed on, the way the fuzzer runs it (--script-keep-going:
# a command that does not apply is reported and the next one runs). Passes when the app exits 0
# with no sanitizer report.
#   run_gui_regression.sh LOWERSCOPE SCRIPT OUT_DIR
set -u
bin=$1; script=$2; out=$3
mkdir -p "$out"
cd "$out" || exit 1
log=$(mktemp)
xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --script "$script" --script-keep-going --no-settings \
  --size 1280x800 --timeout 120 2>"$log"
rc=$?
if [ $rc -ne 0 ] || grep -q "Sanitizer\|runtime error:" "$log"; then
  cat "$log"; rm -f "$log"
  echo "FAILED (exit code $rc): $script"
  exit 1
fi
rm -f "$log"
echo "ok: $(basename "$script")"
