#!/usr/bin/env python3
"""Add meta.module (the module path of each node) to a bundled fxjson file from a fresh export.

    /usr/bin/python3 tools/merge_module_paths.py BUNDLED.fxjson.json REEXPORTED.fxjson.json

The bundled graphs (assets/graphs) were traced before tools/export_fxjson.py recorded module
paths. Re-exporting them with the same torch/torchvision gives the same graph plus meta.module;
this script checks that the two files are identical apart from meta.module and the producer
block (node by node: name, op, target, args, kwargs, shape, dtype; constants, inputs, outputs,
example inputs) and then writes the bundled file back with only meta.module added (and the
exporter's "module_attribution" note in producer.trace), keeping its formatting. It refuses
(exit 1, naming the first differing node) when the graphs differ.
"""
import json
import os
import sys


def _strip(doc):
    doc = json.loads(json.dumps(doc))
    doc.pop("producer", None)
    for n in doc["nodes"]:
        n.get("meta", {}).pop("module", None)
    return doc


def merge(bundled_path, fresh_path):
    with open(bundled_path) as f:
        bundled = json.load(f)
    with open(fresh_path) as f:
        fresh = json.load(f)
    a, b = _strip(bundled), _strip(fresh)
    if a != b:
        for k in sorted(set(a) | set(b)):
            if k != "nodes" and a.get(k) != b.get(k):
                raise SystemExit(f"merge_module_paths: {k!r} differs between {bundled_path} and {fresh_path}")
        if len(a["nodes"]) != len(b["nodes"]):
            raise SystemExit(f"merge_module_paths: {len(a['nodes'])} vs {len(b['nodes'])} nodes")
        for x, y in zip(a["nodes"], b["nodes"]):
            if x != y:
                raise SystemExit(f"merge_module_paths: node {x.get('name')!r} differs from {y.get('name')!r}")
    count = 0
    for n, m in zip(bundled["nodes"], fresh["nodes"]):
        module = m.get("meta", {}).get("module")
        n.get("meta", {}).pop("module", None)
        if module:
            n.setdefault("meta", {})["module"] = module
            count += 1
    attribution = fresh.get("producer", {}).get("trace", {}).get("module_attribution")
    if attribution:
        bundled.setdefault("producer", {}).setdefault("trace", {})["module_attribution"] = attribution
    tmp = bundled_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(bundled, indent=1) + "\n")
    os.replace(tmp, bundled_path)
    print(f"{bundled_path}: meta.module on {count} of {len(bundled['nodes'])} nodes")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    merge(sys.argv[1], sys.argv[2])
