#!/usr/bin/env python3
"""Pins upstream's Arm pass lists: reads `_tosa_pipeline` and `transform_for_annotation_pipeline`
from a snapshot of pytorch/executorch (backends/arm/_passes/arm_pass_manager.py), each pass's file
and the profile/target predicates the file consults, merges our disposition of every entry
(tools/upstream_pipeline_notes.tsv), and writes

  core/backends/arm/upstream_pipeline.inc   the pinned table (compiled into upstream_pipeline.cpp;
                                            tests/core/arm/upstream_pipeline_test.cpp holds our
                                            pipelines to it; `lowerscope-cli passes` shows it)
  docs/UPSTREAM.md                          the same table for readers

Usage (a snapshot from the search tool's `fetch`, a bare git directory, or a checkout):
  tools/gen_upstream_pipeline.py --git /work/.mirror/pytorch+executorch/repo --commit cff6f4dd32e6
  tools/gen_upstream_pipeline.py --checkout ~/src/executorch
Python standard library only. Nothing of upstream's code is copied: only pass names, file names,
list order and which predicates a file consults.
"""
import argparse
import ast
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSES_DIR = "backends/arm/_passes"
MANAGER = PASSES_DIR + "/arm_pass_manager.py"
DISPOSITIONS = ("same", "differs", "moved", "other", "partial", "missing", "na")


class Snapshot:
    def __init__(self, git=None, commit=None, checkout=None):
        self.git, self.commit, self.checkout = git, commit, checkout
        if git:
            self.commit = self._git("rev-parse", (commit or "HEAD") + "^{commit}").strip()
            self.date = self._git("show", "-s", "--format=%cs", self.commit).strip()
        else:
            try:
                self.commit = subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True,
                                             text=True, check=True).stdout.strip()
                self.date = subprocess.run(["git", "-C", checkout, "show", "-s", "--format=%cs", "HEAD"],
                                           capture_output=True, text=True, check=True).stdout.strip()
            except (subprocess.CalledProcessError, FileNotFoundError):
                self.commit, self.date = "unknown", "unknown"

    def _git(self, *args):
        return subprocess.run(["git", "--git-dir", self.git, *args], capture_output=True, text=True, check=True).stdout

    def read(self, path):
        if self.git:
            try:
                return self._git("show", f"{self.commit}:{path}")
            except subprocess.CalledProcessError:
                return None
        p = os.path.join(self.checkout, path)
        return open(p).read() if os.path.exists(p) else None

    def listdir(self, path):
        if self.git:
            out = self._git("ls-tree", "--name-only", f"{self.commit}:{path}")
            return out.split()
        return os.listdir(os.path.join(self.checkout, path))


def pass_files(snap):
    """Class name -> file path, from the `from .module import Class` lines of _passes/__init__.py
    and the imports of the manager (passes that live elsewhere in executorch)."""
    files = {}
    for src, base in ((snap.read(PASSES_DIR + "/__init__.py"), PASSES_DIR), (snap.read(MANAGER), None)):
        if not src:
            continue
        for node in ast.walk(ast.parse(src)):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level == 1 and base and node.module:
                path = f"{base}/{node.module.replace('.', '/')}.py"
            elif node.module and node.module.startswith("executorch."):
                path = node.module[len("executorch."):].replace(".", "/") + ".py"
                if snap.read(path) is None:
                    path = node.module[len("executorch."):].replace(".", "/") + "/__init__.py"
            else:
                continue
            for a in node.names:
                files.setdefault(a.name, path)
    return files


def method(tree, cls_name_hint, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    sys.exit(f"gen_upstream_pipeline: {MANAGER} has no method {name} ({cls_name_hint})")


def gate_text(test):
    """A readable form of an `if` test around pass additions (the config that adds the pass)."""
    return ast.unparse(test).replace("self.compile_spec._get_pass_pipeline_config().", "config.")


def collect(fn):
    """Pass classes in the order `add_pass(X(...))` / `add_passes([X(...), ...])` add them, with the
    `if` conditions around them."""
    out = []

    def visit(stmts, conds):
        for st in stmts:
            if isinstance(st, ast.If):
                visit(st.body, conds + [gate_text(st.test)])
                visit(st.orelse, conds + ["not (" + gate_text(st.test) + ")"])
            elif isinstance(st, ast.With):
                visit(st.body, conds)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                call = st.value
                fname = call.func.attr if isinstance(call.func, ast.Attribute) else None
                if fname == "add_passes" and call.args and isinstance(call.args[0], ast.List):
                    for el in call.args[0].elts:
                        if isinstance(el, ast.Call) and isinstance(el.func, ast.Name):
                            out.append((el.func.id, conds))
                elif fname == "add_pass" and call.args and isinstance(call.args[0], ast.Call):
                    f = call.args[0].func
                    if isinstance(f, ast.Name):
                        out.append((f.id, conds))
            elif isinstance(st, ast.Return) and isinstance(st.value, ast.Call):
                pass
    visit(fn.body, [])
    return out


def predicates(src, cls):
    """Which profile/target predicates a pass file consults (as upstream's should_run / call do)."""
    if not src:
        return "?"
    found = []
    if "is_U55_subset" in src or "U55" in cls:
        found.append("U55")
    if "is_U85_subset" in src or "U85" in cls:
        found.append("U85")
    if "support_integer()" in src:
        found.append("INT")
    if "support_float()" in src:
        found.append("FP")
    if "support_extension(" in src:
        found.append("extension")
    return "+".join(found) if found else "all"


def read_notes(path):
    """(notes, extras): notes[(list, index)] = (upstream name, disposition, our passes, reason);
    extras = [(list, our pass, reason)], our passes with no upstream entry of their name."""
    notes, extras = {}, []
    for ln in open(path):
        if ln.startswith("#") or not ln.strip():
            continue
        cells = ln.rstrip("\n").split("\t")
        if len(cells) != 6:
            sys.exit(f"{path}: '{ln.strip()}': expected 6 tab-separated fields")
        lst, idx, name, disp, ours, reason = cells
        if lst.startswith("extra-"):
            if lst[6:] not in ("tosa", "tfa") or disp != "ours" or len(reason.strip()) < 8:
                sys.exit(f"{path}: '{ln.strip()}': an extra is 'extra-tosa|extra-tfa, N, OurPass, ours, OurPass, reason'")
            extras.append((lst[6:], name, reason))
            continue
        if disp not in DISPOSITIONS:
            sys.exit(f"{path}: {lst} #{idx} {name}: disposition '{disp}', expected one of {', '.join(DISPOSITIONS)}")
        if disp != "same" and len(reason.strip()) < 8:
            sys.exit(f"{path}: {lst} #{idx} {name}: '{disp}' needs a reason that says why")
        notes[(lst, int(idx))] = (name, disp, [o for o in ours.split(",") if o], reason)
    return notes, extras


def our_files():
    """Our pass name -> the source file that registers it: the .cpp under core/ naming it where a
    pass is registered or constructed (`r.add("X"`, `.name = "X"`, `Pass("X"`), else the first
    .cpp holding the quoted name; pipeline lists excluded."""
    registered, quoted = {}, {}
    for d, dirs, fs in os.walk(os.path.join(ROOT, "core")):
        dirs.sort()
        for f in sorted(fs):
            if not f.endswith(".cpp") or f.endswith("_pipeline.cpp") or f == "pipelines.cpp":
                continue
            p = os.path.join(d, f)
            text = open(p, errors="replace").read()
            rel = os.path.relpath(p, ROOT)
            for m in re.finditer(r'(?:\badd\(|\.name = |Pass\()\s*"([A-Z][A-Za-z0-9]+Pass)"', text):
                registered.setdefault(m.group(1), rel)
            for m in re.finditer(r'"([A-Z][A-Za-z0-9]+Pass)"', text):
                quoted.setdefault(m.group(1), rel)
    return {**quoted, **registered}


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git", help="a pytorch/executorch git directory (bare or not)")
    ap.add_argument("--commit", help="commit to read (default HEAD)")
    ap.add_argument("--checkout", help="a pytorch/executorch work tree instead of --git")
    ap.add_argument("--notes", default=os.path.join(ROOT, "tools", "upstream_pipeline_notes.tsv"))
    ap.add_argument("--inc", default=os.path.join(ROOT, "core", "backends", "arm", "upstream_pipeline.inc"))
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "UPSTREAM.md"))
    args = ap.parse_args()
    if not args.git and not args.checkout:
        ap.error("give --git or --checkout")
    snap = Snapshot(args.git, args.commit, args.checkout)
    manager = snap.read(MANAGER)
    if manager is None:
        sys.exit(f"gen_upstream_pipeline: {MANAGER} not found at {snap.commit}")
    tree = ast.parse(manager)
    files = pass_files(snap)
    lists = {"tosa": collect(method(tree, "ArmPassManager", "_tosa_pipeline")),
             "tfa": collect(method(tree, "ArmPassManager", "transform_for_annotation_pipeline"))}
    notes, extras = read_notes(args.notes)
    ours = our_files()

    rows = []
    problems = []
    for lst, entries in lists.items():
        for i, (cls, conds) in enumerate(entries, start=1):
            path = files.get(cls, "")
            src = snap.read(path) if path else None
            gate = predicates(src, cls)
            if conds:
                gate += " if " + " and ".join(conds)
            note = notes.get((lst, i))
            if note is None:
                problems.append(f"{lst} #{i} {cls}: no row in {os.path.relpath(args.notes, ROOT)}")
                note = (cls, "missing", [], "not yet examined")
            elif note[0] != cls:
                problems.append(f"{lst} #{i}: upstream has {cls}, the notes say {note[0]} (upstream's list changed: "
                                f"re-examine the rows from here on)")
            rows.append((lst, i, cls, path, gate) + note[1:])
    for key in notes:
        if key[1] > len(lists[key[0]]):
            problems.append(f"{key[0]} #{key[1]} {notes[key][0]}: the notes have a row upstream's list does not")
    if problems:
        sys.exit("gen_upstream_pipeline:\n  " + "\n  ".join(problems))

    header = (f"// Generated by tools/gen_upstream_pipeline.py from pytorch/executorch {snap.commit} ({snap.date}),\n"
              f"// {MANAGER}, and tools/upstream_pipeline_notes.tsv. Do not edit: edit the notes and regenerate.\n"
              "// {list, index, upstream pass, upstream file, predicates its file consults (and the config that adds\n"
              "//  it), disposition here, our passes, reason}\n")
    with open(args.inc + ".tmp", "w") as f:
        f.write(header)
        f.write(f"constexpr const char* kUpstreamCommit = {c_str(snap.commit)};\n"
                f"constexpr const char* kUpstreamDate = {c_str(snap.date)};\n")
        f.write("constexpr UpstreamEntry kUpstreamEntries[] = {\n")
        for lst, i, cls, path, gate, disp, our, reason in rows:
            f.write(f"{{UpstreamList::{'Tosa' if lst == 'tosa' else 'Annotation'}, {i}, {c_str(cls)}, {c_str(path)}, "
                    f"{c_str(gate)}, Disposition::{disp.capitalize() if disp != 'na' else 'NotApplicable'}, "
                    f"{c_str(','.join(our))}, {c_str(reason)}}},\n")
        f.write("};\nconstexpr UpstreamEntry kUpstreamExtras[] = {\n")
        for lst, name, reason in extras:
            f.write(f"{{UpstreamList::{'Tosa' if lst == 'tosa' else 'Annotation'}, 0, {c_str(name)}, \"\", \"\", "
                    f"Disposition::Ours, {c_str(name)}, {c_str(reason)}}},\n")
        f.write("};\n")
    os.replace(args.inc + ".tmp", args.inc)

    counts = {lst: collections.Counter(r[5] for r in rows if r[0] == lst) for lst in lists}
    def our_cell(names):
        return ", ".join(f"`{n}` ({ours[n]})" if n in ours else f"`{n}`" for n in names) or "-"
    with open(args.doc + ".tmp", "w") as f:
        f.write("# Upstream's Arm pass lists and ours\n\n")
        f.write(f"Generated by `tools/gen_upstream_pipeline.py` from pytorch/executorch `{snap.commit[:12]}` ({snap.date}), "
                f"`{MANAGER}`, and our notes (`tools/upstream_pipeline_notes.tsv`). The same table is compiled into "
                "`core/backends/arm/upstream_pipeline.inc`: `lowerscope-cli passes` shows each pass's upstream "
                "name and file, and `tests/core/arm/upstream_pipeline_test.cpp` fails when our `tosa` pipeline or the "
                "quantizer's preparation differs from it in a way the table does not explain.\n\n")
        f.write("Dispositions: **same** (our pass of that name, in upstream's relative order); **differs** (same name, "
                "other behaviour); **moved** (same name, another position); **other**/**partial** (done by the passes "
                "named, fully or in part); **missing** (not done here yet); **n/a** (cannot apply to this IR). "
                "\"Predicates\" are the profile/target checks the pass's file consults (`all`: none), then the "
                "configuration under which the list adds it.\n\n")
        f.write("| list | entries | " + " | ".join(DISPOSITIONS) + " |\n|---|---:|" + "---:|" * len(DISPOSITIONS) + "\n")
        for lst in lists:
            f.write(f"| {'_tosa_pipeline' if lst == 'tosa' else 'transform_for_annotation_pipeline'} | {len(lists[lst])} | "
                    + " | ".join(str(counts[lst][d]) for d in DISPOSITIONS) + " |\n")
        for lst in lists:
            f.write(f"\n## `{'_tosa_pipeline' if lst == 'tosa' else 'transform_for_annotation_pipeline'}`\n\n")
            f.write("| # | upstream pass | upstream file | predicates | here | our passes | why |\n|---:|---|---|---|---|---|---|\n")
            for l2, i, cls, path, gate, disp, our, reason in rows:
                if l2 != lst:
                    continue
                f.write(f"| {i} | `{cls}` | {path.replace(PASSES_DIR + '/', '')} | {gate.replace('|', '/')} | {disp if disp != 'na' else 'n/a'} | "
                        f"{our_cell(our)} | {reason.replace('|', '/')} |\n")
            f.write(f"\nOur passes in the {'tosa pipeline' if lst == 'tosa' else 'preparation (quantize-pt2e)'} with no upstream "
                    "entry of their name in this list:\n\n| our pass | why |\n|---|---|\n")
            for l2, name, reason in extras:
                if l2 == lst:
                    f.write(f"| {our_cell([name])} | {reason.replace('|', '/')} |\n")
    os.replace(args.doc + ".tmp", args.doc)
    print(f"gen_upstream_pipeline: {snap.commit[:12]} ({snap.date}): " +
          ", ".join(f"{lst} {len(lists[lst])} entries" for lst in lists) + f"; wrote {os.path.relpath(args.inc, ROOT)}, "
          f"{os.path.relpath(args.doc, ROOT)}")


if __name__ == "__main__":
    main()
