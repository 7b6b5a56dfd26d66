#!/usr/bin/env python3
"""GUI action fuzzer: drives the desktop app with random sequences of --script commands.

Each seed generates one script of N random actions drawn from the script language
(viewers/model/script.h): open files (bundled models, saved traces, and corrupt, truncated,
empty or missing files), switch pipeline/profile/target, run, compare, step, pin, select,
search, enter/leave nested graphs, switch to the quantizer's run, export, keys, zoom, fit.
The app runs it under Xvfb with --script-keep-going (a command that does not apply is reported
and the next one runs), normally from the ASan+UBSan build (`cmake --preset asan-app`).

A seed fails when the app crashes, a sanitizer reports, it hangs past the timeout, or it exits
with anything but 0. The failing script is kept (and printed with the command that replays it),
then reduced: the app echoes each command as it starts (--script-echo), so everything after the
last one started is dropped, then chunks of lines of halving size are dropped while the app still
fails the same way (--reduce-budget seconds per seed). The reduced script is printed and kept as
seedN.reduced.lsscript; the exit status is 1 when any seed failed.

Usage:
  tools/gui_action_fuzz.py --app build/asan-app/app/lowerscope --cli build/asan-app/app/lowerscope-cli \
      --seeds 10 --actions 1000 --out /tmp/guifuzz
Python standard library only.
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = os.path.join(ROOT, "assets", "graphs")
MODELS = ["squeezenet1_1", "resnet18", "mobilenet_v3_small", "mobilenet_v2", "wav2letter", "deit_tiny_vit"]
PIPELINES = ["tosa", "tosa-permute", "xnnpack", "generic"]
RUN_OPTIONS = ["--no-skip", "--no-fast-copy", "--no-cache", "--skip", "--fast-copy", "--no-quantize", "--quantize",
               "--profile fp", "--profile int", "--target generic", "--target u55", "--target u85",
               "--pipeline tosa", "--pipeline xnnpack", "--pipeline generic", "--pipeline tosa-permute",
               "--disable FuseBatchNorm2dPass", "--disable NoSuchPass"]
PASS_NAMES = ["InsertTableOpsPass", "FuseBatchNorm2dPass", "RewriteConv2dPass", "ToTosaMemoryFormatPass",
              "FuseTosaTransposesPass", "QuantizePt2ePass", "XnnpackPartitionPass", "ConvertToLinearPass",
              "DeadCodeEliminationPass", "NoSuchPass"]
NODE_NAMES = ["x", "conv2d", "relu", "add", "linear", "output", "arg0_1", "nosuchnode", "call_delegate",
              "delegate_0"]
KEYS = ["up", "down", "home", "end", "escape", "f1", "f5", "a", "f", "n", "p", "z"]


def make_fixtures(work, cli):
    """Files the fuzzer opens: real ones, and corrupt, truncated, empty and missing ones."""
    files = [os.path.join(GRAPHS, m + ".fxjson.json") for m in MODELS]
    src = os.path.join(GRAPHS, "squeezenet1_1.fxjson.json")
    data = open(src, "rb").read()
    def write(name, blob):
        p = os.path.join(work, name)
        with open(p, "wb") as f:
            f.write(blob)
        return p
    bad = [
        write("truncated.fxjson.json", data[: len(data) // 3]),
        write("empty.fxjson.json", b""),
        write("garbage.lsg", os.urandom(4096)),
        write("corrupt.lstrace", b"xxxxLST1garbage-not-a-flatbuffer"),
        write("notjson.fxjson.json", b"{\"nodes\": [1, 2, {\"op\": }"),
        write("wrong_shape.fxjson.json", data.replace(b"[1, 3, ", b"[1, 5, ", 1)),
        os.path.join(work, "missing.fxjson.json"),
    ]
    good = list(files)
    if cli:
        for m, prof in (("resnet18", "fp"), ("mobilenet_v3_small", "int")):
            t = os.path.join(work, f"{m}_{prof}.lstrace")
            g = os.path.join(work, f"{m}_{prof}.lsg")
            r = subprocess.run([cli, "lower", os.path.join(GRAPHS, m + ".fxjson.json"), "--pipeline", "tosa",
                                "--profile", prof, "--trace", t, "--out", g, "--quiet"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                good += [t, g]
                with open(t, "rb") as f:
                    blob = f.read()
                bad.append(write(f"{m}_{prof}_truncated.lstrace", blob[: len(blob) // 2]))
    return good, bad


def action(rng, good, bad, work, n):
    """One random script command."""
    r = rng.random()
    out = os.path.join(work, f"out{n % 7}")
    if r < 0.05:
        return f"open {rng.choice(good)}"
    if r < 0.07:
        return f"open {rng.choice(bad)}"
    if r < 0.10:
        return rng.choice([f"pipeline {rng.choice(PIPELINES)}", f"profile {rng.choice(['fp', 'int'])}",
                           f"target {rng.choice(['generic', 'u55', 'u85'])}"])
    if r < 0.14:
        return "run " + " ".join(rng.sample(RUN_OPTIONS, rng.randint(0, 3)))
    if r < 0.16:
        # Timed repeats are most of a comparison's time: mostly one or two, sometimes the default (5).
        repeat = rng.choice(["--repeat 1", "--repeat 1", "--repeat 2", ""])
        return " ".join(["compare", repeat] + rng.sample(RUN_OPTIONS, rng.randint(0, 2))).replace("  ", " ").strip()
    if r < 0.17:
        return f"compare-trace {rng.choice(good + bad)}"
    if r < 0.19:
        return "wait"
    if r < 0.34:
        return rng.choice(["next pass", "prev pass", "next changed", "prev changed", "first pass", "last pass"])
    if r < 0.40:
        return rng.choice([f"select pass {rng.randint(-3, 90)}", f"select pass {rng.choice(PASS_NAMES)}"])
    if r < 0.44:
        return f"select node {rng.choice(NODE_NAMES)}"
    if r < 0.47:
        return rng.choice([f"pin pass {rng.randint(-2, 80)}", f"pin pass {rng.choice(PASS_NAMES)}", "unpin"])
    if r < 0.50:
        return f"view {rng.choice(['pipeline', 'graph', 'inspector', 'timing'])}"
    if r < 0.53:
        return rng.choice(["filter hide-skipped on", "filter hide-skipped off", "filter hide-unchanged on",
                           "filter hide-unchanged off", f"filter search {rng.choice(['Pass', 'Fuse', 'zz', 'Rewrite'])}"])
    if r < 0.57:
        return rng.choice([f"search {rng.choice(['conv', 'relu', 'TRANSPOSE', 'module:features', 'zzz'])}",
                           "search next", "search prev"])
    if r < 0.61:
        return rng.choice(["next change", "prev change"])
    if r < 0.64:
        return rng.choice(["fit", f"zoom {rng.choice([0.1, 0.5, 2, 8, 40])}"])
    if r < 0.67:
        return rng.choice(["enter delegate_0", "enter call_delegate", "enter nosuch", "leave"])
    if r < 0.69:
        return f"stage {rng.choice(['quantizer', 'pipeline'])}"
    if r < 0.72:
        fmt = rng.choice(["csv", "json", "md", "chrome"])
        return f"export comparison {fmt} {out}.{fmt}"
    if r < 0.75:
        fmt = rng.choice(["lstrace", "csv", "md", "chrome", "dot"])
        return f"export run {fmt} {out}.{fmt}"
    if r < 0.76:
        return f"export chart {out}.png"
    if r < 0.86:
        return f"key {rng.choice(KEYS)}" + (" shift" if rng.random() < 0.3 else "")
    if r < 0.90:
        return f"frames {rng.randint(1, 4)}"
    return rng.choice(["expect pass-status changed", "expect diff nonempty", "expect min drawn-nodes 1",
                       "expect graph main", "expect pipeline tosa", "expect error", "expect help",
                       "expect node conv2d"])


def run_script(args, script, timeout):
    """Runs the app on one script; returns (finding or None, seconds, stderr, cmd)."""
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1:exitcode=86")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    cmd = [args.app, "--script", script, "--script-keep-going", "--script-echo", "--no-settings", "--size", "1280x800",
           "--timeout", str(timeout)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                           timeout=timeout + 60)
        err, rc = p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        err, rc = (e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")), 3
    dt = time.time() - t0
    finding = None
    if "AddressSanitizer" in err or "runtime error:" in err or "LeakSanitizer" in err:
        finding = "sanitizer report"
    elif rc == 3:
        finding = "hang (timed out)"
    elif rc != 0:
        finding = f"exit code {rc}"
    return finding, dt, err, cmd


def last_echoed_line(stderr):
    """The source line of the last script command the app started (--script-echo), or None."""
    last = None
    for ln in stderr.splitlines():
        if ln.startswith("script: "):
            try:
                last = int(ln.split(":")[1])
            except ValueError:
                pass
    return last


def reduce_script(args, lines, finding, seconds, path):
    """Drops script lines while the app still fails the same way: first everything after the last
    command the app started, then chunks of halving size (ddmin). Returns the reduced lines."""
    kind = finding.split()[0]  # "exit", "sanitizer" or "hang"
    timeout = int(min(args.timeout, max(30, 3 * seconds)))
    deadline = time.time() + args.reduce_budget
    runs = 0

    def fails(cand):
        nonlocal runs
        runs += 1
        with open(path, "w") as f:
            f.write("\n".join(cand) + "\n")
        got, _, err, _ = run_script(args, path, timeout)
        same = got is not None and (got == finding if kind == "exit" else got.split()[0] == kind)
        return same, err

    def cut_after_crash(cand, err):
        last = last_echoed_line(err)
        # Script line numbers are 1-based positions in the file written by fails().
        return cand[:last] if last is not None and last < len(cand) else cand

    ok, err = fails(lines)
    if not ok:
        return lines, runs
    cand = cut_after_crash(lines, err)
    if cand != lines:
        ok2, err2 = fails(cand)
        if ok2:
            lines, err = cand, err2
    header = [ln for ln in lines[:1] if ln.startswith("#")]
    body = lines[len(header):]
    chunk = max(1, len(body) // 2)
    while chunk >= 1 and time.time() < deadline:
        i = 0
        while i < len(body) and time.time() < deadline:
            cand = body[:i] + body[i + chunk:]
            ok, err = fails(header + cand) if cand else (False, "")
            if ok:
                body = cut_after_crash(header + cand, err)[len(header):]
            else:
                i += chunk
        if chunk == 1:
            break
        chunk //= 2
    reduced = header + body
    with open(path, "w") as f:
        f.write("\n".join(reduced) + "\n")
    return reduced, runs


def run_seed(args, seed, good, bad, work):
    rng = random.Random(seed)
    lines = [f"# gui_action_fuzz seed {seed}", f"open {rng.choice(good)}"]
    lines += [action(rng, good, bad, work, i) for i in range(args.actions)]
    script = os.path.join(args.out, f"seed{seed}.lsscript")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    finding, dt, err, cmd = run_script(args, script, args.timeout)
    kept = err.count("(keep going)")
    r = {"seed": seed, "seconds": dt, "actions": args.actions, "not_applicable": kept, "finding": finding,
         "script": script, "stderr": err, "cmd": cmd, "reduced": None}
    if finding and args.reduce_budget > 0 and not finding.startswith("hang"):
        reduced_path = os.path.join(args.out, f"seed{seed}.reduced.lsscript")
        r["reduced"], r["reduce_runs"] = reduce_script(args, lines, finding, dt, reduced_path)
        r["reduced_path"] = reduced_path
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app", required=True)
    ap.add_argument("--cli", default="", help="lowerscope-cli, to write .lstrace/.lsg fixtures")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--actions", type=int, default=1000)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--out", default="/tmp/gui_action_fuzz")
    ap.add_argument("--jobs", type=int, default=1, help="seeds run at once (one Xvfb serves them all)")
    ap.add_argument("--reduce-budget", type=int, default=600,
                    help="seconds per failing seed spent dropping lines while it still fails (0: no reduction)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "files")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    good, bad = make_fixtures(work, args.cli)
    if not shutil.which("Xvfb") and "DISPLAY" not in os.environ:
        print("gui_action_fuzz: needs Xvfb (xvfb-run) or a DISPLAY", file=sys.stderr)
        return 2
    xvfb = None
    if "DISPLAY" not in os.environ:
        disp = ":%d" % (90 + os.getpid() % 50)
        xvfb = subprocess.Popen(["Xvfb", disp, "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.environ["DISPLAY"] = disp
        time.sleep(1.0)
    failures = 0
    print("| seed | actions | not applicable | seconds | finding |")
    print("|---:|---:|---:|---:|---|")
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for r in pool.map(lambda s: run_seed(args, s, good, bad, work), seeds):
                print(f"| {r['seed']} | {r['actions']} | {r['not_applicable']} | {r['seconds']:.0f} | {r['finding'] or 'none'} |",
                      flush=True)
                if not r["finding"]:
                    continue
                failures += 1
                log = os.path.join(args.out, f"seed{r['seed']}.stderr.txt")
                with open(log, "w") as f:
                    f.write(r["stderr"])
                print(f"  replay: DISPLAY=$DISPLAY {' '.join(r['cmd'])}   (stderr: {log})", flush=True)
                if r["reduced"] is not None:
                    print(f"  reduced to {len(r['reduced'])} lines in {r['reduce_runs']} runs ({r['reduced_path']}):", flush=True)
                    for ln in r["reduced"]:
                        print("    " + ln, flush=True)
    finally:
        if xvfb:
            xvfb.terminate()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
