#!/usr/bin/env python3
"""Run lowerscope-cli over every exported zoo model and print a markdown table.

    /usr/bin/python3 tools/zoo_table.py                         # DIR=/tmp/zoo, CLI copy in DIR/bin
    /usr/bin/python3 tools/zoo_table.py --dir /tmp/zoo --cli build/dev/app/lowerscope-cli --timeout 300
    /usr/bin/python3 tools/zoo_table.py --only resnet18 gru --bisect

For each DIR/<name>.fxjson.json (see tools/export_zoo.py), one command at a time:
  1. lowerscope-cli info --check-shapes --json FILE   -> nodes, shape agreement, opaque count,
                                                         unknown ops (from the import warnings)
  2. lowerscope-cli verify --pipeline tosa --profile fp  FILE
  3. lowerscope-cli verify --pipeline tosa --profile int FILE   (default target: generic)
  With --bisect, a NOT EQUIVALENT verify is re-run with --bisect to name the first bad pass.

Writes DIR/table.md and DIR/table.json and prints the table plus the distinct error reasons,
grouped (unknown ops, missing reference kernels, failed passes, not-equivalent results, ...).
Export failures recorded in DIR/export_status.json are listed too.

Default CLI: DIR/bin/lowerscope-cli; if it does not exist it is first copied from
build/dev/app/lowerscope-cli (a private copy, so a rebuild of the original does not disturb the run).
"""

import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILT_CLI = os.path.join(REPO, "build", "dev", "app", "lowerscope-cli")
UNKNOWN_RE = re.compile(r"unknown op '([^']+)' imported as opaque")


def run(cmd, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), time.time() - t0
    except subprocess.TimeoutExpired:
        return None, "", f"timeout after {timeout:.0f} s", time.time() - t0


def _lines(*texts):
    return [l for t in texts for l in t.splitlines() if l.strip()]


def do_info(cli, path, timeout):
    rc, out, err, secs = run([cli, "info", "--check-shapes", "--json", path], timeout)
    r = {"rc": rc, "seconds": round(secs, 2),
         "unknown_ops": sorted(set(UNKNOWN_RE.findall(err)))}
    try:
        j = json.loads(out)
        cs = j.get("check_shapes", {})
        r.update(nodes=j.get("nodes"), checked=cs.get("checked"), agreed=cs.get("agreed"),
                 opaque=j.get("kinds", {}).get("opaque", cs.get("opaque", 0)),
                 mismatches=[str(m) for m in (cs.get("mismatches") or [])][:5])
        if cs.get("checked"):
            r["shapes"] = f"{cs['agreed']}/{cs['checked']} ({100.0 * cs['agreed'] / cs['checked']:.1f}%)"
        else:
            r["shapes"] = "0/0"
        if r["opaque"] and not r["unknown_ops"]:
            r["unknown_ops"] = unknown_ops(cli, path, timeout)
    except ValueError:
        errs = [l for l in _lines(err, out) if not l.startswith("warning:")]
        r["error"] = errs[0] if errs else f"info exited {rc} with no output"
        r["shapes"] = "error"
    return r


def unknown_ops(cli, path, timeout):
    """Ops imported as opaque, from the import warnings (info --json does not print them)."""
    rc, out, err, secs = run([cli, "info", path], timeout)
    return sorted(set(UNKNOWN_RE.findall(err + out)))


def _verify_error(out, err):
    """First line that explains a failure: 'error: ...' or 'pipeline failed: ...' or the timeout."""
    for l in _lines(err, out):
        s = l.strip()
        if s.startswith("error:"):
            return s[len("error:"):].strip()
    for l in _lines(out, err):
        s = l.strip()
        if s.startswith("pipeline failed:") or "failed:" in s and not s.startswith(("warning:", "q")):
            return s
    return None


def do_verify(cli, path, profile, timeout, bisect):
    jpath = path + f".verify-{profile}.tmp.json"
    if os.path.exists(jpath):
        os.remove(jpath)
    rc, out, err, secs = run([cli, "verify", "--pipeline", "tosa", "--profile", profile, "--json", jpath, path],
                             timeout)
    r = {"rc": rc, "seconds": round(secs, 2)}
    m = re.search(r"^result: (.*?)(?: \(pipeline.*)?$", out, re.M)
    result_line = m.group(1).strip() if m else None
    js = None
    if os.path.exists(jpath):
        try:
            with open(jpath) as f:
                js = json.load(f)
        except ValueError:
            pass
        os.remove(jpath)
    if rc is None:
        r.update(result="TIMEOUT", error=err)
    elif result_line in ("EQUIVALENT", "NOT EQUIVALENT"):
        r["result"] = result_line
        fm = re.search(r"^final graph: (.*)$", out, re.M)
        r["final"] = fm.group(1) if fm else (js or {}).get("final", {}).get("message")
        if result_line == "NOT EQUIVALENT":
            r["error"] = _verify_error(out, err) or f"final graph: {r['final']}"
    else:
        r["result"] = "ERROR"
        r["error"] = _verify_error(out, err) or (_lines(err, out) or [f"exit {rc}, no output"])[-1]
    if js:
        r["passes_run"] = js.get("passes_run")
        ag = js.get("int_agreement")
        if ag:  # verify's teacher-forced explanation of INT steps over the tolerance
            r["int_agreement"] = {k: ag.get(k) for k in ("differ", "elements", "not_at_tie", "not_near_tie",
                                                         "max_steps", "only_ties", "only_near_ties")}
    if bisect and needs_bisect(r):
        r["bisect"] = do_bisect(cli, path, profile, timeout)
    return r


def needs_bisect(r):
    """A numerical NOT EQUIVALENT (a failed pass already names itself)."""
    return r.get("result") == "NOT EQUIVALENT" and not (r.get("error") or "").startswith("pipeline failed")


def do_bisect(cli, path, profile, timeout):
    rc, out, err, secs = run([cli, "verify", "--pipeline", "tosa", "--profile", profile, "--bisect", path], timeout)
    if rc is None:
        return f"bisect timeout after {timeout:.0f} s"
    bl = [l.strip() for l in _lines(out, err) if re.search(r"first bad pass|first responsible", l, re.I)]
    return re.sub(r"^bisect: ", "", bl[-1]) if bl else "bisect found no single bad pass"


# ---------------------------------------------------------------------------------- grouping

WRAPPERS = (
    "the source graph does not run: ",
    "quantizing the float graph for the INT profile failed: ",
)


def root_cause(msg, model):
    """Strip wrappers and per-model detail so that the same problem in two models (or in the FP and
    INT runs of one model) reads the same."""
    if not msg:
        return msg
    s = msg
    if "calibration run failed: " in s:      # INT: the quantizer's calibration run = the FP source run
        s = "the source graph does not run: " + s.split("calibration run failed: ", 1)[1]
    for w in WRAPPERS[1:]:
        if s.startswith(w):
            s = s[len(w):]
    s = re.sub(r"(^|: )" + re.escape(model) + r": ", r"\1", s)
    s = re.sub(r"node '[^']*'", "node", s)
    s = re.sub(r"\b([a-z]{1,4}\d*)\[[\d, ]*\]", r"\1[…]", s)              # f32[1,3,64,64] -> f32[…]
    s = re.sub(r"\((max abs|max steps)[^)]*\)", "(…)", s)
    return s.strip()


def category(reason):
    if reason is None:
        return "other"
    if reason.startswith("the source graph does not run"):
        if "no kernel for op" in reason:
            return "source graph does not run: missing reference kernel"
        return "source graph does not run: unsupported case in a reference kernel"
    if reason.startswith("pipeline failed") or re.search(r"pass '[^']+' \(#\d+\) failed", reason):
        return "failed pass (rewrite/legalisation error)"
    if "not equivalent" in reason or reason.startswith("final graph"):
        return "not equivalent (numerical mismatch)"
    if "timeout" in reason.lower():
        return "timeout"
    return "other error"


def md_escape(s):
    return (s or "").replace("|", "\\|").replace("\n", " ")


def short(s, n=140):
    s = s or ""
    return s if len(s) <= n else s[:n - 1] + "…"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--dir", default="/tmp/zoo", help="directory of *.fxjson.json (default /tmp/zoo)")
    ap.add_argument("--cli", help="lowerscope-cli to run (default DIR/bin/lowerscope-cli, copied from the build)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per command (default 300)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these models")
    ap.add_argument("--bisect", action="store_true", help="re-run NOT EQUIVALENT results with --bisect")
    ap.add_argument("--profiles", nargs="+", default=["fp", "int"], choices=["fp", "int"])
    ap.add_argument("--reuse", action="store_true",
                    help="reuse rows of an earlier DIR/table.json whose file (size, mtime) and CLI (size, mtime) "
                         "are unchanged instead of re-running them")
    args = ap.parse_args(argv)

    cli = args.cli
    if not cli:
        cli = os.path.join(args.dir, "bin", "lowerscope-cli")
        if not os.path.exists(cli):
            os.makedirs(os.path.dirname(cli), exist_ok=True)
            shutil.copy2(BUILT_CLI, cli)
            print(f"zoo_table: copied {BUILT_CLI} -> {cli}", file=sys.stderr)
    files = sorted(glob.glob(os.path.join(args.dir, "*.fxjson.json")))
    names = [os.path.basename(f)[:-len(".fxjson.json")] for f in files]
    if args.only:
        keep = set(args.only)
        files, names = zip(*[(f, n) for f, n in zip(files, names) if n in keep]) if keep & set(names) else ((), ())
    try:
        with open(os.path.join(args.dir, "export_status.json")) as f:
            export_status = json.load(f)
    except (OSError, ValueError):
        export_status = {}

    def stamp(path):
        st = os.stat(path)
        return [st.st_size, int(st.st_mtime)]

    previous = {}
    if args.reuse:
        try:
            with open(os.path.join(args.dir, "table.json")) as fh:
                previous = {r["model"]: r for r in json.load(fh).get("rows", [])}
        except (OSError, ValueError):
            previous = {}
    cli_stamp = stamp(cli)

    rows = []
    for i, (f, n) in enumerate(zip(files, names), 1):
        old = previous.get(n)
        if old and old.get("stamp") == stamp(f) and old.get("cli_stamp") == cli_stamp and \
                all(p in old for p in args.profiles):
            old["group"] = export_status.get(n, {}).get("group", old.get("group"))
            if old["info"].get("opaque") and not old["info"].get("unknown_ops"):
                old["info"]["unknown_ops"] = unknown_ops(cli, f, args.timeout)
            if args.bisect:
                for p in args.profiles:
                    if needs_bisect(old[p]) and "bisect" not in old[p]:
                        old[p]["bisect"] = do_bisect(cli, f, p, args.timeout)
            rows.append(old)
            print(f"[{i}/{len(files)}] {n}: reused", file=sys.stderr, flush=True)
            continue
        row = {"model": n, "group": export_status.get(n, {}).get("group"), "file": f, "stamp": stamp(f),
               "cli_stamp": cli_stamp, "bisected": args.bisect, "info": do_info(cli, f, args.timeout)}
        for p in args.profiles:
            row[p] = do_verify(cli, f, p, args.timeout, args.bisect)
        errs = [row["info"].get("error")] + [row[p].get("error") for p in args.profiles]
        row["first_error"] = next((e for e in errs if e), None)
        rows.append(row)
        print(f"[{i}/{len(files)}] {n}: shapes {row['info'].get('shapes')}, "
              + ", ".join(f"{p.upper()} {row[p]['result']}" for p in args.profiles)
              + (f" — {short(row['first_error'], 160)}" if row["first_error"] else ""), file=sys.stderr, flush=True)

    # ---- table
    hdr = ["model", "group", "nodes", "shapes", "opaque"] + [p.upper() for p in args.profiles] + ["first error"]
    md = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for r in rows:
        inf = r["info"]
        cells = [r["model"], r["group"] or "", str(inf.get("nodes", "")), inf.get("shapes", ""),
                 str(inf.get("opaque", ""))] + [r[p]["result"] for p in args.profiles] + \
                [short(r["first_error"], 160)]
        md.append("| " + " | ".join(md_escape(c) for c in cells) + " |")
    failed_exports = {n: s for n, s in export_status.items() if s.get("status") != "ok"}
    if failed_exports and not args.only:
        md.append("")
        md.append("Not exported:")
        md.append("")
        for n, s in sorted(failed_exports.items()):
            md.append(f"- {n} ({s.get('group')}): {s.get('status')}: {short(s.get('reason'), 300)}")

    # ---- grouped reasons
    unknown = collections.defaultdict(list)
    for r in rows:
        for op in r["info"].get("unknown_ops", []):
            unknown[op].append(r["model"])
    # category -> reason -> model -> [profiles]
    groups = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    for r in rows:
        if r["info"].get("error"):
            groups["info error"][root_cause(r["info"]["error"], r["model"])][r["model"]].append("info")
        if r["info"].get("mismatches"):
            groups["shape inference mismatch"]["re-inferred shape differs from the recorded one"][r["model"]].append(
                "info")
        for p in args.profiles:
            v = r[p]
            if v["result"] == "EQUIVALENT":
                continue
            reason = root_cause(v.get("error") or v["result"], r["model"])
            if reason.startswith("final graph:"):       # numerical mismatch: group by kind (+ bisected pass)
                reason = "final graph not equivalent: " + (
                    "outputs off by more than --max-steps quantisation steps" if "quantisation step" in reason
                    else "float outputs beyond tolerance" if " vs expected " in reason else reason[13:])
                ag = v.get("int_agreement")
                if ag:
                    reason += ("; every quantised difference is a rounding tie carried through the network"
                               if ag.get("only_ties") else
                               "; every quantised difference is a rounding tie or float32 near-tie"
                               if ag.get("only_near_ties") else
                               "; quantised values differ away from a rounding tie (see verify's int agreement)")
                m = re.search(r"first bad pass is (#\d+ \S+?):", v.get("bisect") or "")
                if m:
                    reason += f"; bisect: first bad pass {m.group(1)}"
                elif v.get("bisect"):
                    reason += f"; bisect: {root_cause(v['bisect'], r['model'])}"
            groups[category(reason)][reason][r["model"]].append(p)

    def who(ms):
        return ", ".join(m + ("" if len(ps) == len(args.profiles) and "info" not in ps else f" ({'+'.join(ps)})")
                         for m, ps in ms.items())

    summary = ["", "## Grouped error reasons", ""]
    if unknown:
        summary.append("### unknown ops (imported as opaque)")
        for op, ms in sorted(unknown.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            summary.append(f"- `{op}` ({len(ms)}): {', '.join(ms)}")
        summary.append("")
    for cat in sorted(groups, key=lambda c: -sum(len(v) for v in groups[c].values())):
        summary.append(f"### {cat}")
        for reason, ms in sorted(groups[cat].items(), key=lambda kv: (-len(kv[1]), kv[0])):
            summary.append(f"- {reason} — {len(ms)} model(s): {who(ms)}")
        summary.append("")
    tot = {p: collections.Counter(r[p]["result"] for r in rows) for p in args.profiles}
    summary.append("### totals")
    summary.append(f"- models run: {len(rows)}; not exported: {len(failed_exports)}")
    for p in args.profiles:
        summary.append(f"- {p.upper()}: " + ", ".join(f"{k} {v}" for k, v in sorted(tot[p].items())))

    text = "\n".join(md + summary) + "\n"
    print(text)
    with open(os.path.join(args.dir, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.dir, "table.json"), "w") as f:
        json.dump({"cli": cli, "rows": rows, "unknown_ops": unknown,
                   "grouped": {c: {k: dict(v) for k, v in g.items()} for c, g in groups.items()},
                   "not_exported": failed_exports}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
