#!/bin/sh
# GUI regression test under Xvfb: replays a reduced script the action fuzzer
# (tools/gui_action_fuzz.py) once crashed on, the way the fuzzer runs it (--script-keep-going:
# a command that does not apply is reported and the next one runs). Passes when the app exits 0
# with no sanitizer report. The saved runs the fuzzer opens are written first with the CLI, under
# the fuzzer's names (resnet18_fp.lstrace, mobilenet_v3_small_int.lstrace) in OUT_DIR, where the
# script's relative paths resolve.
#   run_gui_regression.sh LOWERSCOPE LOWERSCOPE_CLI SCRIPT OUT_DIR
set -u
bin=$1; cli=$2; script=$3; out=$4
assets=$(cd "$(dirname "$0")/../../assets/graphs" && pwd)
mkdir -p "$out"
cd "$out" || exit 1
for fx in resnet18:fp mobilenet_v3_small:int; do
  m=${fx%%:*}; prof=${fx##*:}
  [ -s "${m}_${prof}.lstrace" ] && continue
  "$cli" lower "$assets/$m.fxjson.json" --pipeline tosa --profile "$prof" --trace "${m}_${prof}.lstrace.tmp" \
    --out "${m}_${prof}.lsg" --quiet >/dev/null && mv "${m}_${prof}.lstrace.tmp" "${m}_${prof}.lstrace"
done
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
