#!/usr/bin/env python3
"""Writes tests/data/bundles/resnet18_symbolic.lsbundle: torchvision's resnet18 traced with
torch.fx.symbolic_trace (so its layers stay call_module nodes, plus operator.add and
torch.flatten calls: 69 nodes the engine does not know), shapes propagated on a 1x3x64x64 input,
through a one-pass list recorded by tools/lowerscope_record.py. The fixture of the grouped
unknown-op warnings (tests/cli/bundle_cli_test.cpp).

    /usr/bin/python3 tests/tools/make_symbolic_bundle.py [OUT.lsbundle]
"""

import os
import sys

import torch
import torchvision
from torch.fx.passes.infra.pass_base import PassResult
from torch.fx.passes.shape_prop import ShapeProp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from lowerscope_record import record_pass_manager  # noqa: E402


def KeepGraphPass(gm):
    """Changes nothing: the bundle is about the recorded graphs, not the pass."""
    return PassResult(gm, False)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "bundles",
                                                             "resnet18_symbolic.lsbundle")
    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(torchvision.models.resnet18().eval())
    ShapeProp(gm).propagate(torch.randn(1, 3, 64, 64))
    record_pass_manager([KeepGraphPass], gm, out, model="resnet18_symbolic", pipeline="symbolic_trace")
    print("wrote", out)


if __name__ == "__main__":
    main()
