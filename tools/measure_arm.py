#!/usr/bin/env python3
# Measures the Arm TOSA pipelines per real model: pipeline length, passes run/skipped, TRANSPOSE
# counts (per-op NHWC wrappers only; before/after FuseTosaTransposesPass in `tosa`; `tosa-permute`)
# and `lowerscope-cli lower` total ms, default vs --no-skip --no-fast-copy (median of 5; 3 for
# the 10.8k-node graph). Run from the repository root after building lowerscope-cli:
#   python3 tools/measure_arm.py [--profile fp|int] [--cli build/release/app/lowerscope-cli]
# With --profile int each float graph is quantized first (not part of the pipeline ms).
import argparse, json, subprocess, statistics, sys
ap = argparse.ArgumentParser()
ap.add_argument("--profile", choices=["fp", "int"], default="fp")
ap.add_argument("--cli", default="./build/dev/app/lowerscope-cli")
args = ap.parse_args()
CLI = args.cli
MODELS = ["mobilenet_v2", "mobilenet_v3_small", "resnet18", "squeezenet1_1", "efficientnet_b0",
          "deeplabv3_mobilenet_v3_large", "deit_tiny_vit", "wav2letter", "large/vit_tiny_deep200"]
def run(model, pipeline, extra=()):
    cmd = [CLI, "lower", f"assets/graphs/{model}.fxjson.json", "--pipeline", pipeline, "--profile", args.profile,
           "--json", "/tmp/arm_m.json", "-q", *extra]
    subprocess.run(cmd, check=True, capture_output=True)
    return json.load(open("/tmp/arm_m.json"))
def tr(d): return d["final"]["op_histogram"].get("tosa.TRANSPOSE", 0)
rows = []
for m in MODELS:
    reps = 3 if m.startswith("large/") else 5
    d = run(m, "tosa")
    t = d["totals"]
    wrappers = tr(run(m, "tosa", ["--disable-pass", "ToTosaMemoryFormatPass", "--disable-pass", "FuseTosaTransposesPass"]))
    before_fuse = tr(run(m, "tosa", ["--disable-pass", "FuseTosaTransposesPass"]))
    after_fuse = tr(d)
    fuse_stats = [p for p in d["passes"] if p["name"] == "FuseTosaTransposesPass"][0]["stats"]
    dp = run(m, "tosa-permute")
    perm = tr(dp)
    fast = statistics.median(run(m, "tosa")["totals"]["ms"] for _ in range(reps))
    slow = statistics.median(run(m, "tosa", ["--no-skip", "--no-fast-copy"])["totals"]["ms"] for _ in range(reps))
    pfast = statistics.median(run(m, "tosa-permute")["totals"]["ms"] for _ in range(reps))
    row = dict(model=m, profile=args.profile, length=len(d["passes"]), ran=t["ran"], skipped=t["skipped"], changed=t["changed"],
               nodes_in=d["passes"][0]["nodes_before"], nodes_out=d["final"]["nodes"],
               wrappers=wrappers, before_fuse=before_fuse, after_fuse=after_fuse, fuse_stats=fuse_stats,
               permute=perm, permute_ran=dp["totals"]["ran"], ms_default=round(fast, 1), ms_baseline=round(slow, 1),
               ms_permute=round(pfast, 1), reps=reps)
    rows.append(row)
    print(json.dumps(row), flush=True)
