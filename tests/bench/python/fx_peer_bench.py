#!/usr/bin/env python3
"""The Python peer of our pass engine: what one pass costs per node in torch.fx, side by side
with lowerscope-cli on the same model (issue 16's per-node targets).

Upstream's passes are ExportPass subclasses: every pass re-traces the whole graph through an
interpreter that calls each op on fake tensors (to recompute node.meta["val"]) and records a new
node through a tracer, then builds a new GraphModule. A pass whose should-run hook could skip
it, or that only copies nodes, still pays for copying the graph and recompiling the module.
This script measures, on the same graph our bench uses (traced by tools/export_fxjson.py's
make_fx path from torchvision):

  full retrace  interpreter over the graph, each call_function run on FakeTensors under
                FakeTensorMode and recorded through torch.fx.Tracer.create_proxy, meta["val"]
                set, new GraphModule (recompiled): ExportPass's work per pass.
  fast copy     Graph.node_copy of every node with its meta, new GraphModule (recompiled): the
                cheapest a Python pass can be when it must return a new module.

and, interleaved with them, `lowerscope-cli bench --pipeline tosa` with `--no-skip --no-fast-copy`
(every pass re-infers every node: our full retrace) and `--no-skip` (our fast copy). Cost per
node and pass = time / (passes that ran x nodes of the input graph), for both sides.

Both sides are measured warm and alike: a Python sample is the mean of --passes passes in a
process that already ran one pass of each kind; a lowerscope sample is the mean pass-manager
time of --passes pipeline runs in one CLI process after one unmeasured run (`bench --repeat
PASSES --warmup 1 --serialize none`, field pm_ms_mean: each run loads the graph afresh and
lowers it, with nothing between the runs, as the Python passes run in a loop; bench's default
E2E writes an .lsg after every run, which for these shape-only weights synthesises and writes
47 MB and leaves the next run's caches cold). The figures are the medians of the --repeat
samples.

A process's first runs are slower than its later ones, on both sides (the CPU's caches and
predictors learn the code; on resnet18 with --no-skip our runs 2-4 take about 15% longer than
runs after the tenth). So every sample pairs the two sides in the same state:

  fresh process  a new Python process per sample (`--worker`: import, trace, one unmeasured pass
                 of each kind, then --passes passes of each) against the CLI sample above, a new
                 process with one unmeasured run;
  warm process   the Python samples of this script's own process, which stays warm across the
                 samples, against our steady-state benchmark, tests/bench's BM_TosaNoSkipResnet18
                 (Google Benchmark, many iterations in one process, the graph loaded afresh
                 before every run: the fast_copy_fresh_load and full_reinfer cases, field
                 ns_per_node_pass, the median run per pass and node), when --ls-bench names the
                 binary (default build/dev/tests/ls_bench, skipped when absent).

A third pairing, warm Python against the fresh CLI process (how earlier versions of this script
read the target), is printed too. A fresh Python process is not slower than the warm one (the
long-lived process carries more objects for the collector), so fresh against fresh is the
lowest of the three ratios in our runs.

    /usr/bin/python3 tests/bench/python/fx_peer_bench.py --cli build/dev/app/lowerscope-cli \
        --graph assets/graphs/resnet18.fxjson.json --model torchvision:resnet18

Exit code 0 with a "skipped" line when torch or torchvision is not importable. This is a
benchmark, not a test: it prints figures and ratios and asserts nothing.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def _load_torch():
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
        return True
    except Exception as e:  # pragma: no cover - depends on the machine
        print(f"skipped: torch/torchvision not importable ({type(e).__name__}: {e})")
        return False


def trace_model(spec, shape):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import export_fxjson as ex
    kind, name = spec.split(":", 1)
    if kind != "torchvision":
        raise SystemExit(f"--model {spec}: only torchvision:NAME is supported")
    import torchvision
    module = getattr(torchvision.models, name)().eval()
    example = torch.randn(*shape)
    gm, _consts, input_nodes, _info = ex._trace_make_fx(module, (example,))
    return gm, example


def full_retrace(gm, example, fake_mode):
    """One ExportPass-style pass: new graph, every op re-run on fake tensors."""
    import torch
    from torch.fx import Graph, GraphModule, Proxy, Tracer
    from torch.fx.node import map_arg
    tracer = Tracer()
    tracer.graph = Graph()
    tracer.root = gm
    env = {}  # old node -> (new node, fake value)

    def val(a):
        return env[a][1]

    for n in gm.graph.nodes:
        if n.op == "placeholder":
            new = tracer.graph.placeholder(n.name)
            v = fake_mode.from_tensor(example)
        elif n.op == "get_attr":
            new = tracer.graph.get_attr(n.target)
            v = fake_mode.from_tensor(getattr(gm, n.target))
        elif n.op == "call_function":
            fargs = map_arg(n.args, val)
            fkwargs = map_arg(n.kwargs, val)
            with fake_mode:
                v = n.target(*fargs, **fkwargs)
            def prox(a):
                return Proxy(env[a][0], tracer)
            new = tracer.create_proxy("call_function", n.target, map_arg(n.args, prox), map_arg(n.kwargs, prox),
                                      name=n.name).node
        elif n.op == "output":
            new = tracer.graph.output(map_arg(n.args[0], lambda a: env[a][0]))
            v = None
        else:
            raise SystemExit(f"unexpected node op {n.op}")
        new.meta["val"] = v
        env[n] = (new, v)
    return GraphModule(gm, tracer.graph)


def fast_copy(gm):
    from torch.fx import Graph, GraphModule
    g = Graph()
    env = {}
    for n in gm.graph.nodes:
        env[n] = g.node_copy(n, lambda a: env[a])
    return GraphModule(gm, g)


def time_python(gm, example, passes):
    from torch._subclasses.fake_tensor import FakeTensorMode
    fake_mode = FakeTensorMode(allow_non_fake_inputs=True) if "allow_non_fake_inputs" in \
        FakeTensorMode.__init__.__code__.co_varnames else FakeTensorMode()
    t0 = time.perf_counter()
    cur = gm
    for _ in range(passes):
        cur = full_retrace(cur, example, fake_mode)
    t1 = time.perf_counter()
    cur = gm
    for _ in range(passes):
        cur = fast_copy(cur)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def run_cli(cli, graph, config, runs):
    """Mean pass-manager seconds of `runs` warm pipeline runs (after one unmeasured run), and
    the passes that ran: the same measure as a Python sample's mean over its passes."""
    out = subprocess.run([cli, "bench", graph, "--pipeline", "tosa", "--repeat", str(runs), "--warmup", "1",
                          "--serialize", "none", "--config", config, "--format", "json"], check=True, capture_output=True, text=True)
    r = json.loads(out.stdout)["results"][0]
    return r["pm_ms_mean"] / 1e3, r["passes_ran"]


def run_python_fresh(args):
    """Seconds of --passes full retraces and fast copies in a new Python process (after one
    unmeasured pass of each), and its graph's node count."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", "--model", args.model,
                          "--input-shape", args.input_shape, "--passes", str(args.passes)],
                         check=True, capture_output=True, text=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return r["full"], r["copy"], r["nodes"]


def run_ls_bench(ls_bench, min_time):
    """Nanoseconds per node and pass that ran, steady state (Google Benchmark), for our fast
    copy and full re-inference on resnet18: {"copy": ns, "full": ns}."""
    out = subprocess.run([ls_bench, "--benchmark_filter=BM_TosaNoSkipResnet18/(fast_copy_fresh_load|full_reinfer)",
                          f"--benchmark_min_time={min_time}", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True)
    got = {}
    for b in json.loads(out.stdout)["benchmarks"]:
        if "ns_per_node_pass" not in b:
            raise SystemExit(f"{ls_bench}: {b.get('name')} has no ns_per_node_pass ({b.get('error_message', '')})")
        got["copy" if "fast_copy" in b["name"] else "full"] = b["ns_per_node_pass"] / 1e9
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "dev", "app", "lowerscope-cli"))
    ap.add_argument("--graph", default=os.path.join(ROOT, "assets", "graphs", "resnet18.fxjson.json"))
    ap.add_argument("--model", default="torchvision:resnet18")
    ap.add_argument("--input-shape", default="1,3,224,224")
    ap.add_argument("--passes", type=int, default=10,
                    help="Python passes, and lowerscope pipeline runs, per timed sample (warm, averaged)")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved samples per configuration")
    ap.add_argument("--ls-bench", default=os.path.join(ROOT, "build", "dev", "tests", "ls_bench"),
                    help="tests/bench binary for the steady-state samples (skipped when absent)")
    ap.add_argument("--ls-bench-min-time", type=float, default=0.5, help="seconds per Google Benchmark case and sample")
    ap.add_argument("--worker", action="store_true",
                    help="internal: time the Python passes in this (fresh) process and print them as JSON")
    args = ap.parse_args()
    if not _load_torch():
        return 0
    if args.worker:
        gm, example = trace_model(args.model, [int(x) for x in args.input_shape.split(",")])
        time_python(gm, example, 1)  # warm-up: one pass of each kind, as the CLI's --warmup 1
        full, copy = time_python(gm, example, args.passes)
        print(json.dumps({"full": full, "copy": copy, "nodes": len(gm.graph.nodes)}))
        return 0
    if not os.path.exists(args.cli):
        raise SystemExit(f"--cli {args.cli}: no such file (build the dev preset first)")
    with open(args.graph) as f:
        ours_nodes = len(json.load(f)["nodes"])
    gm, example = trace_model(args.model, [int(x) for x in args.input_shape.split(",")])
    py_nodes = len(gm.graph.nodes)
    samples = {"py_full": [], "py_copy": [], "pyf_full": [], "pyf_copy": [], "ls_full": [], "ls_copy": [],
               "gb_full": [], "gb_copy": []}
    use_gb = os.path.exists(args.ls_bench)
    if not use_gb:
        print(f"note: --ls-bench {args.ls_bench}: no such file; steady-state rows skipped")
    ran = 0
    time_python(gm, example, 1)  # warm-up
    for _ in range(args.repeat):
        full, copy = time_python(gm, example, args.passes)
        samples["py_full"].append(full / (args.passes * py_nodes))
        samples["py_copy"].append(copy / (args.passes * py_nodes))
        full, copy, fresh_nodes = run_python_fresh(args)
        samples["pyf_full"].append(full / (args.passes * fresh_nodes))
        samples["pyf_copy"].append(copy / (args.passes * fresh_nodes))
        t, ran = run_cli(args.cli, args.graph, "full=--no-skip --no-fast-copy", args.passes)
        samples["ls_full"].append(t / (ran * ours_nodes))
        t, ran = run_cli(args.cli, args.graph, "copy=--no-skip", args.passes)
        samples["ls_copy"].append(t / (ran * ours_nodes))
        if use_gb:
            gb = run_ls_bench(args.ls_bench, args.ls_bench_min_time)
            samples["gb_full"].append(gb["full"])
            samples["gb_copy"].append(gb["copy"])
    med = {k: statistics.median(v) * 1e9 for k, v in samples.items() if v}
    print(f"model {args.model}: Python graph {py_nodes} nodes, ours {ours_nodes} nodes; "
          f"{args.repeat} interleaved samples (each the mean of {args.passes} warm passes / pipeline runs), medians; "
          f"lowerscope tosa pipeline ran {ran} passes (--no-skip)")
    print("| per node and pass | Python torch.fx | lowerscope | ratio |")
    print("|---|---:|---:|---:|")

    def row(label, py, ours):
        print(f"| {label} | {med[py]:.0f} ns | {med[ours]:.1f} ns | {med[py] / med[ours]:.0f}x |")

    row("full retrace (ExportPass / --no-skip --no-fast-copy), fresh process both sides", "pyf_full", "ls_full")
    row("fast copy (node_copy / --no-skip), fresh process both sides", "pyf_copy", "ls_copy")
    if use_gb:
        row("full retrace, warm process both sides (ls_bench full_reinfer)", "py_full", "gb_full")
        row("fast copy, warm process both sides (ls_bench fast_copy_fresh_load)", "py_copy", "gb_copy")
    row("full retrace, warm Python against the fresh CLI process", "py_full", "ls_full")
    row("fast copy, warm Python against the fresh CLI process", "py_copy", "ls_copy")
    row("Python full retrace (warm) vs lowerscope --no-skip (fresh CLI)", "py_full", "ls_copy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
