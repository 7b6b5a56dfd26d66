#!/usr/bin/env python3
"""End-to-end test of tools/export_fxjson.py against real PyTorch.

For each torchvision model (default: resnet18, mobilenet_v2, squeezenet1_1 on 1x3x64x64):
  1. export it with the exporter's command line (random seeded weights; resnet18 without
     --weights, so its large constants carry no data, the others with --weights);
  2. import the file with `lowerscope-cli info --check-shapes` (Lowerscope re-infers every node
     and must agree with PyTorch's recorded shapes/dtypes on 100% of the nodes);
  3. rebuild the same model and input (same seed) and re-run the dumped graph node by node with
     torch.ops (constants from data_b64, or from the model's state_dict by fqn where the file has
     no data), checking every node's recorded shape/dtype and that the outputs are bitwise equal
     to the eager model's.
Then the Python API is exercised on a small module that covers the other encodings (enum
kwargs, -inf scalars, tensor constants, several inputs/outputs, multi-output ops).

Environment: LS_CLI = path of lowerscope-cli (default build/dev/app/lowerscope-cli, relative to
the repository root). Run with a Python that imports torch and torchvision, e.g.
/usr/bin/python3 tests/tools/test_export.py. Exit status 0 only if everything passed.
"""

import argparse
import base64
import json
import math
import operator
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPORTER = os.path.join(ROOT, "tools", "export_fxjson.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))

try:
    import torch  # noqa: E402
    import export_fxjson as ex  # noqa: E402
except ImportError as _e:  # CTest counts exit code 77 as "skipped"
    print(f"test_export: SKIPPED, {sys.executable} cannot import torch ({_e}); "
          "scripts/install-deps.sh installs python3-torch and python3-torchvision", file=sys.stderr)
    sys.exit(77)


class Failure(Exception):
    pass


# ------------------------------------------------------------------ fxjson -> torch, node by node

def _dtype(name):
    return getattr(torch, name.replace("torch.", ""))


def _decode(a, env):
    if isinstance(a, list):
        return [_decode(x, env) for x in a]
    if isinstance(a, dict):
        if "node" in a:
            return env[a["node"]]
        if "float" in a:
            return float(a["float"])
        if "enum" in a:
            kind, v = a["kind"], a["enum"]
            if kind == "device":
                return torch.device(v)
            return getattr(torch, v.replace("torch.", ""))
        if "slice" in a:
            return slice(*[_decode(x, env) for x in a["slice"]])
        raise Failure(f"cannot decode argument {a}")
    return a


def _op(target):
    if target == "operator.getitem":
        return operator.getitem
    parts = target.split(".")
    ns, overload, name = parts[0], parts[-1], ".".join(parts[1:-1])
    return getattr(getattr(getattr(torch.ops, ns), name), overload)


def _constant(c, state_dict):
    shape, dt = c["shape"], _dtype(c["dtype"])
    if "data_b64" in c:
        raw = base64.b64decode(c["data_b64"])
        n = 1
        for s in shape:
            n *= s
        if n == 0:
            return torch.empty(shape, dtype=dt)
        if sys.byteorder != "little":
            raise Failure("big-endian host: data_b64 is little-endian")
        return torch.frombuffer(bytearray(raw), dtype=dt).reshape(shape).clone()
    if c.get("fqn") in state_dict:
        t = state_dict[c["fqn"]]
        if list(t.shape) != shape or t.dtype != dt:
            raise Failure(f"constant {c['fqn']}: file says {shape} {c['dtype']}, model has {list(t.shape)} {t.dtype}")
        return t
    raise Failure(f"constant {c.get('fqn')} has no data and is not in the model's state_dict")


def _check_meta(node, value):
    meta = node.get("meta") or {}
    if "shape" in meta:
        if not isinstance(value, torch.Tensor) or list(value.shape) != meta["shape"] or \
                ex._dtype_name(value.dtype) != meta["dtype"]:
            got = (list(value.shape), ex._dtype_name(value.dtype)) if isinstance(value, torch.Tensor) else type(value)
            raise Failure(f"node {node['name']}: recorded {meta['shape']} {meta['dtype']}, torch computes {got}")
    elif "shapes" in meta:
        vals = list(value)
        if len(vals) != len(meta["shapes"]):
            raise Failure(f"node {node['name']}: {len(meta['shapes'])} recorded outputs, torch returns {len(vals)}")
        for i, (v, s, d) in enumerate(zip(vals, meta["shapes"], meta["dtypes"])):
            if s is None:
                continue
            if list(v.shape) != s or ex._dtype_name(v.dtype) != d:
                raise Failure(f"node {node['name']} output {i}: recorded {s} {d}, torch computes "
                              f"{list(v.shape)} {ex._dtype_name(v.dtype)}")


def run_fxjson(doc, inputs, state_dict):
    """Interpret an fxjson document with torch.ops; returns the list of output tensors."""
    env = {}
    it = iter(inputs)
    with torch.no_grad():
        for node in doc["nodes"]:
            op = node["op"]
            if op == "placeholder":
                env[node["name"]] = next(it)
            elif op == "get_attr":
                env[node["name"]] = _constant(doc["constants"][node["target"]], state_dict)
            elif op == "call_function":
                args = _decode(node["args"], env)
                kwargs = {k: _decode(v, env) for k, v in node["kwargs"].items()}
                try:
                    env[node["name"]] = _op(node["target"])(*args, **kwargs)
                except Exception as e:
                    raise Failure(f"node {node['name']} ({node['target']}) fails in torch: {e}") from e
            elif op == "output":
                return [env[a["node"]] for a in node["args"][0]]
            _check_meta(node, env[node["name"]])
    raise Failure("no output node")


# ------------------------------------------------------------------------------------ the steps

def check_shapes(cli, path):
    t0 = time.time()
    p = subprocess.run([cli, "info", "--check-shapes", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    out = p.stdout
    m = re.search(r"(\d+)/(\d+) call nodes agree", out)
    if p.returncode != 0 or not m or m.group(1) != m.group(2):
        lines = [l for l in out.splitlines() if l.strip()]
        detail = "\n    ".join(l for l in lines if "mismatch" in l.lower() or "disagree" in l.lower()
                               or "error" in l.lower() or "expected" in l.lower()) or "\n    ".join(lines[-15:])
        raise Failure(f"lowerscope-cli info --check-shapes {os.path.basename(path)} exited {p.returncode}:\n    "
                      f"{detail}")
    return f"{m.group(1)}/{m.group(2)} agree", time.time() - t0


def check_modules(cli, path, doc):
    """The CLI groups nodes by meta.module: `print --modules` heads each run of nodes with its
    module path, and `info` counts call nodes per top-level module."""
    calls = [n for n in doc["nodes"] if n["op"] == "call_function"]
    modules = [n["meta"].get("module") for n in calls if n["meta"].get("module")]
    if not modules:
        raise Failure(f"{os.path.basename(path)}: no node carries meta.module")
    p = subprocess.run([cli, "print", "--modules", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise Failure(f"print --modules exited {p.returncode}: {p.stdout[-500:]}")
    current = None
    seen = 0
    for line in p.stdout.splitlines():
        if line.startswith("# module "):
            current = line[len("# module "):]
        elif line.startswith("# "):
            current = None
        else:
            m = re.match(r"  %(\S+) = ", line)
            if not m:
                continue
            node = next((n for n in calls if n["name"] == m.group(1)), None)
            if node is not None:
                seen += 1
                if node["meta"].get("module") != current:
                    raise Failure(f"print --modules: %{node['name']} listed under {current!r}, "
                                  f"its meta.module is {node['meta'].get('module')!r}")
    if seen != len(calls):
        raise Failure(f"print --modules listed {seen} of {len(calls)} call nodes")
    p = subprocess.run([cli, "info", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    top = modules[0].split(".")[0]
    count = sum(1 for m in modules if m.split(".")[0] == top)
    if f"{top} {count}" not in p.stdout:
        raise Failure(f"info does not report {count} call nodes in top-level module {top!r}:\n{p.stdout}")


def compare(eager, got, what):
    if len(eager) != len(got):
        raise Failure(f"{what}: {len(got)} outputs, eager has {len(eager)}")
    for i, (a, b) in enumerate(zip(eager, got)):
        if a.shape != b.shape or a.dtype != b.dtype or not torch.equal(a, b):
            diff = (a.double() - b.double()).abs().max().item() if a.shape == b.shape else "shape"
            raise Failure(f"{what}: output {i} differs from eager (max abs diff {diff})")


def test_torchvision(name, shape, weights, cli, tmp, seed):
    t_start = time.time()
    path = os.path.join(tmp, f"{name}.fxjson.json")
    cmd = [sys.executable, EXPORTER, f"torchvision:{name}", "--input-shape", ",".join(map(str, shape)),
           "--seed", str(seed), "-o", path, "-q"] + (["--weights"] if weights else [])
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    t_export = time.time() - t0
    if p.returncode != 0:
        raise Failure(f"export failed ({p.returncode}):\n{p.stdout}")
    with open(path) as f:
        doc = json.load(f)
    calls = sum(1 for n in doc["nodes"] if n["op"] == "call_function")
    with_module = sum(1 for n in doc["nodes"] if n["op"] == "call_function" and n["meta"].get("module"))
    agree, t_check = check_shapes(cli, path)
    check_modules(cli, path, doc)

    t0 = time.time()
    model, _, _ = ex.build_from_spec(f"torchvision:{name}", seed)
    model.eval()
    inputs = ex.make_example_inputs([shape], seed=seed)
    with torch.no_grad():
        eager = ex._flatten_outputs(model(*inputs))
    got = run_fxjson(doc, inputs, model.state_dict())
    compare(eager, got, name)
    t_rerun = time.time() - t0
    diff = doc["producer"]["trace"]["trace_vs_eager_max_abs_diff"]
    print(f"  {name}: {len(doc['nodes'])} nodes, {calls} calls ({with_module} with meta.module), "
          f"{os.path.getsize(path) / 1e6:.1f} MB{' with weights' if weights else ''}; check-shapes {agree}; "
          f"re-run == eager (exporter's own check: {diff}); export {t_export:.1f} s, check-shapes {t_check:.1f} s, "
          f"re-run {t_rerun:.1f} s, total {time.time() - t_start:.1f} s")


class _Encodings(torch.nn.Module):
    """Covers kwargs enums, -inf, tensor constants, two inputs, two outputs, split (multi-output)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.emb = torch.nn.Embedding(10, 8)
        self.register_buffer("scale", torch.full((8,), 0.5))

    def forward(self, x, ids):
        y = self.conv(x)  # 1x8x8x8
        y = y.masked_fill(y < 0, float("-inf"))
        y = torch.softmax(y.flatten(2), -1)  # 1x8x64
        a, b = torch.split(y, 32, dim=2)
        e = self.emb(ids)  # 1x4x8
        z = (a + b).mean(-1) * self.scale + e.sum(1)  # 1x8
        z = z + torch.tensor([1.0, -1.0] * 4)
        return z.to(torch.float64), z.new_zeros((2, 3))


def test_api_encodings(cli, tmp, seed):
    t0 = time.time()
    torch.manual_seed(seed)
    model = _Encodings().eval()
    inputs = (torch.randn(1, 3, 8, 8), torch.randint(0, 10, (1, 4)))
    path = os.path.join(tmp, "encodings.fxjson.json")
    doc = ex.export_module(model, inputs, path, weights=True, name="encodings")
    text = json.dumps(doc)
    for needle in ('"kind": "dtype"', '{"float": "-inf"}', '"kind": "constant"', '"shapes"'):
        if needle not in text:
            raise Failure(f"encodings: expected {needle} in the document")
    if doc["inputs"] != ["x", "ids"] or len(doc["outputs"]) != 2:
        raise Failure(f"encodings: inputs {doc['inputs']} outputs {doc['outputs']}")
    with torch.no_grad():
        eager = ex._flatten_outputs(model(*inputs))
    compare(eager, run_fxjson(doc, inputs, {}), "encodings")
    agree, _ = check_shapes(cli, path)
    ops = sorted({n["target"] for n in doc["nodes"] if n["op"] == "call_function"})
    print(f"  encodings (Python API): {len(doc['nodes'])} nodes, check-shapes {agree}, re-run == eager; "
          f"ops {', '.join(o.replace('aten.', '') for o in ops)} ({time.time() - t0:.1f} s)")


def test_error_names_module(tmp):
    class Inner(torch.nn.Module):
        def forward(self, x):
            return x + len(x.storage())  # storage() cannot be traced

    class Outer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = torch.nn.Sequential(torch.nn.ReLU(), Inner())

        def forward(self, x):
            return self.block(x)

    try:
        ex.export_module(Outer(), (torch.randn(2, 2),), tracer="make_fx")
    except ex.ExportError as e:
        if "block.1" not in str(e) or not e.hint:
            raise Failure(f"error message should name module block.1 and carry a hint: {e} / {e.hint}")
        print(f"  error reporting: {str(e).splitlines()[0][:110]}...")
        return
    raise Failure("an untraceable model exported without error")


def test_fused_kernel_named(tmp):
    """A fused kernel in the traced graph is an error naming its node and module, with a hint."""
    class Fused(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)

        def forward(self, x):
            l = self.layer
            return torch._transformer_encoder_layer_fwd(
                x, 8, 2, l.self_attn.in_proj_weight, l.self_attn.in_proj_bias, l.self_attn.out_proj.weight,
                l.self_attn.out_proj.bias, False, l.norm_first, l.norm1.eps, l.norm1.weight, l.norm1.bias,
                l.norm2.weight, l.norm2.bias, l.linear1.weight, l.linear1.bias, l.linear2.weight, l.linear2.bias, None)

    class Outer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = Fused()

        def forward(self, x):
            return self.enc(x)

    try:
        ex.export_module(Outer().eval(), (torch.randn(1, 4, 8),), tracer="make_fx")
    except ex.ExportError as e:
        msg = str(e)
        if "_transformer_encoder_layer_fwd" not in msg or "'enc'" not in msg or "fast path" not in msg or not e.hint:
            raise Failure(f"the error should name the fused op, module 'enc' and the fast path, with a hint: {e}")
        print(f"  fused kernel: {msg[:110]}...")
        return
    raise Failure("a graph with a fused kernel exported without error")


def test_nn_modules(cli, tmp):
    """Recurrent, 3-D, normalisation and transformer modules export on their decomposed path and
    lower through the tosa pipeline, FP and INT, to graphs equivalent to the source."""
    torch.manual_seed(0)
    nn = torch.nn

    class First(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, *x):
            return self.m(*x)[0]

    cases = {
        "lstm": (First(nn.LSTM(6, 8, num_layers=2, bidirectional=True, batch_first=True)), (torch.randn(1, 4, 6),)),
        "gru": (First(nn.GRU(6, 8, batch_first=True)), (torch.randn(1, 4, 6),)),
        "rnn_relu": (First(nn.RNN(6, 8, nonlinearity="relu")), (torch.randn(4, 1, 6),)),
        "conv3d": (nn.Sequential(nn.Conv3d(2, 4, 3, padding=1, groups=2), nn.ReLU(),
                                 nn.ConvTranspose3d(4, 3, 2, stride=2)), (torch.randn(1, 2, 3, 6, 6),)),
        "instance_norm": (nn.InstanceNorm2d(4, affine=True), (torch.randn(1, 4, 5, 5),)),
        "transformer": (nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1),
                        (torch.randn(1, 5, 8),)),
    }
    for name, (m, inputs) in cases.items():
        path = os.path.join(tmp, f"nn_{name}.fxjson.json")
        ex.export_module(m.eval(), inputs, path, weights=True, name=name)
        for profile in ("fp", "int"):
            p = subprocess.run([cli, "verify", "--pipeline", "tosa", "--profile", profile, path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            if p.returncode != 0 or not last.startswith("result: EQUIVALENT"):
                raise Failure(f"{name} {profile}: verify exited {p.returncode}: {p.stdout[-800:]}")
        print(f"  nn {name}: tosa fp and int equivalent")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="resnet18,mobilenet_v2,squeezenet1_1")
    ap.add_argument("--input-shape", default="1,3,64,64")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", help="write the exported files here and keep them")
    args = ap.parse_args()
    cli = os.environ.get("LS_CLI") or os.path.join(ROOT, "build", "dev", "app", "lowerscope-cli")
    if not os.path.isabs(cli):
        cli = os.path.join(ROOT, cli)
    if not os.access(cli, os.X_OK):
        print(f"test_export: lowerscope-cli not found at {cli} (set LS_CLI)", file=sys.stderr)
        return 1
    shape = [int(s) for s in args.input_shape.split(",")]
    t0 = time.time()
    print(f"test_export: torch {torch.__version__} ({sys.executable}), cli {cli}")
    tmp_ctx = None
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        tmp = args.keep
    else:
        tmp_ctx = tempfile.TemporaryDirectory(prefix="ls_export_")
        tmp = tmp_ctx.name
    tests = []
    for i, name in enumerate(m for m in args.models.split(",") if m):
        weights = i != 0  # the first model without --weights: constants come back through their fqn
        tests.append((f"torchvision:{name}", lambda n=name, w=weights: test_torchvision(n, shape, w, cli, tmp,
                                                                                           args.seed)))
    tests.append(("api-encodings", lambda: test_api_encodings(cli, tmp, args.seed)))
    tests.append(("error-reporting", lambda: test_error_names_module(tmp)))
    tests.append(("fused-kernel", lambda: test_fused_kernel_named(tmp)))
    tests.append(("nn-modules", lambda: test_nn_modules(cli, tmp)))
    passed, failed = 0, []
    for label, fn in tests:
        try:
            fn()
            passed += 1
        except Failure as e:
            failed.append(label)
            print(f"  FAIL {label}: {e}")
        except Exception as e:  # the exporter itself crashed
            failed.append(label)
            print(f"  FAIL {label}: {type(e).__name__}: {e}")
    if tmp_ctx is not None:
        tmp_ctx.cleanup()
    print(f"test_export: {time.time() - t0:.1f} s")
    print(f"test_export: {passed} passed, {len(failed)} failed")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
