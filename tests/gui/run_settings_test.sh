#!/bin/sh
# Settings persistence: two runs with XDG_CONFIG_HOME in a scratch directory. The first opens a
# model and changes the profile; the file must then list the model as recent and keep the
# profile; the second run must start with those settings (its status shows the profile).
#   run_settings_test.sh LOWERSCOPE SCRIPT OUT_DIR
set -eu
bin=$1; script=$2; out=$3
cfg="$out/settings-home"
rm -rf "$cfg"; mkdir -p "$cfg"
cd "$out"
XDG_CONFIG_HOME="$cfg" xvfb-run -a -s "-screen 0 1200x800x24" "$bin" --use-settings --script "$script" --size 1200x800 --timeout 60
f="$cfg/lowerscope/settings.ini"
test -s "$f" || { echo "no settings file at $f"; exit 1; }
grep -q '^recent=.*squeezenet1_1.fxjson.json$' "$f" || { echo "recent file missing"; cat "$f"; exit 1; }
grep -q '^profile=int$' "$f" || { echo "profile not saved"; cat "$f"; exit 1; }
grep -q '^window_width=1200$' "$f" || { echo "window size not saved"; cat "$f"; exit 1; }
echo "ok: settings persisted"
