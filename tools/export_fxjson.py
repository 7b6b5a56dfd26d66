#!/usr/bin/env python3
"""Export a PyTorch model to fxjson, the graph format Lowerscope imports (docs/FXJSON.md).

Command line (run it with a Python that can import torch; on Debian that is /usr/bin/python3):

    /usr/bin/python3 tools/export_fxjson.py torchvision:mobilenet_v2 -o mobilenet_v2.fxjson.json
    /usr/bin/python3 tools/export_fxjson.py torchvision:resnet18 --input-shape 1,3,64,64 --weights
    /usr/bin/python3 tools/export_fxjson.py torchaudio:wav2letter -o wav2letter.fxjson.json
    /usr/bin/python3 tools/export_fxjson.py my_pkg.models:build --input-shape 1,16 -o mine.fxjson.json
    /usr/bin/python3 tools/export_fxjson.py path/to/model.py:build --input-shape 1,3,32,32
    /usr/bin/python3 tools/export_fxjson.py saved_program.pt2 -o prog.fxjson.json      (torch >= 2.1)

Python API:

    import sys; sys.path.insert(0, "tools")
    from export_fxjson import export_module
    doc = export_module(model, (torch.randn(1, 3, 64, 64),), "model.fxjson.json", weights=False)

Only torch (and torchvision / torchaudio for the shortcuts) is needed.

How the graph is captured (two code paths, chosen by the installed torch):
  * torch >= 2.1 ("export" tracer): torch.export.export(module, inputs), then
    ExportedProgram.run_decompositions() (core ATen), then every view op is replaced by its
    functional *_copy variant (view -> view_copy, permute -> permute_copy, ...) as in
    ExecuTorch's edge dialect. Parameters, buffers and lifted constants become get_attr
    constants. The module of each node comes from node.meta["nn_module_stack"] (exact: it is
    what torch.export recorded). A saved ExportedProgram (.pt2, torch.export.save) is loaded
    with torch.export.load. Graphs quantized with PT2E (prepare_pt2e / convert_pt2e) keep their
    quantized_decomposed.quantize_per_tensor / dequantize_per_tensor (q/dq) nodes.
  * torch 1.13 - 2.0 ("make_fx" tracer): make_fx(functionalize(f, remove="mutations_and_views"))
    with tracing_mode "real", where f calls the module through functional_call so that its
    parameters and buffers enter as inputs; they are then turned into get_attr constants. Eval
    mode, no_grad, and nn.MultiheadAttention / TransformerEncoderLayer forced onto their
    decomposed ("slow") path. _reshape_alias_copy / _unsafe_view are normalised to view_copy.
    The module of each node is the innermost module whose forward was running when the op was
    recorded (forward pre/post hooks): exact for ops issued inside a module's forward,
    approximate for work that functionalization replays lazily (the regeneration of a view
    after an in-place update of its base is attributed to the module running at that moment),
    and a module reused at two places is always named by its first path.
  Only the make_fx path (torch 1.13.1, Debian 12) has been run by the project's tests; the
  torch.export path is written against the documented torch 2.1+ API but untested here.

After tracing the exporter re-runs the final graph with torch.fx.Interpreter on the example
inputs: that run records every node's shape/dtype (what PyTorch computed) and its output is
compared with the eager model ("trace_vs_eager_max_abs_diff" in "producer").
"""

import argparse
import base64
import contextlib
import importlib
import importlib.util
import inspect
import json
import math
import operator
import os
import re
import sys
import time
import traceback

try:
    import torch
    import torch.fx
except ImportError:  # pragma: no cover - reported by main()
    torch = None

FORMAT = "fxjson"
FORMAT_VERSION = 1
SMALL_CONSTANT_ELEMENTS = 64
TOOL = "lowerscope tools/export_fxjson.py"
__all__ = ["export_module", "export_program", "build_from_spec", "make_example_inputs", "ExportError"]


class ExportError(RuntimeError):
    """A failure the exporter can explain: `hint` is a one-line suggestion."""

    def __init__(self, message, hint=None):
        super().__init__(message)
        self.hint = hint


# ----------------------------------------------------------------------------- small helpers

def _torch_version():
    m = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def _has_torch_export():
    return _torch_version() >= (2, 1) and hasattr(torch, "export") and hasattr(torch.export, "export")


def _dtype_name(dt):
    return str(dt).replace("torch.", "")


def _parse_dtype(name):
    dt = getattr(torch, name.replace("torch.", ""), None)
    if not isinstance(dt, torch.dtype):
        raise ExportError(f"unknown dtype {name!r}", "use a torch dtype name such as float32, int64, bool")
    return dt


def _op_name(target):
    """'aten.add.Tensor', 'quantized_decomposed.quantize_per_tensor.default', 'operator.getitem'."""
    if target is operator.getitem:
        return "operator.getitem"
    if isinstance(target, torch._ops.OpOverload):
        ns, _, name = target._schema.name.partition("::")
        return f"{ns}.{name}.{target._overloadname}"
    if isinstance(target, torch._ops.OpOverloadPacket):
        raise ExportError(f"op {target} has no resolved overload", None)
    mod = getattr(target, "__module__", None) or "builtins"
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or str(target)
    if mod in ("_operator",):
        mod = "operator"
    return f"{mod}.{name}"


def _tensor_bytes(t):
    t = t.detach().cpu().contiguous()
    try:
        import numpy  # noqa: F401  (a dependency of torch's wheels and of Debian's python3-torch)
        if t.dtype == torch.bfloat16:
            arr = t.view(torch.int16).numpy()
        else:
            arr = t.numpy()
        if sys.byteorder != "little":
            arr = arr.byteswap()
        return arr.tobytes()
    except (ImportError, TypeError, RuntimeError):
        flat = t.reshape(-1)
        if flat.numel() == 0:
            return b""
        return bytes(flat.view(torch.uint8).tolist())


def _module_of_fqn(fqn):
    return fqn.rsplit(".", 1)[0] if fqn and "." in fqn else ""


def _named_modules_all(root):
    """(path, module) for every module including shared ones (each path once)."""
    out = []

    def walk(m, prefix, seen_path):
        out.append((prefix, m))
        for name, child in m._modules.items():
            if child is None:
                continue
            walk(child, f"{prefix}.{name}" if prefix else name, seen_path)

    walk(root, "", set())
    return out


def _named_tensors(root):
    """[(fqn, tensor, kind)] for every parameter and buffer, tied/shared ones under each path."""
    out = []
    modules = _named_modules_all(root)
    for path, m in modules:  # parameters first, then buffers: the order of named_parameters/buffers
        for name, p in m._parameters.items():
            if p is not None:
                out.append((f"{path}.{name}" if path else name, p, "parameter"))
    for path, m in modules:
        for name, b in m._buffers.items():
            if b is not None:
                out.append((f"{path}.{name}" if path else name, b, "buffer"))
    return out


def _flatten_outputs(out):
    """Tensors of a model output (tensor, tuple, list, dict, namedtuple, ...), in pytree order."""
    leaves, _ = torch.utils._pytree.tree_flatten(out)
    return [x for x in leaves if isinstance(x, torch.Tensor)]


def _max_abs_diff(a_list, b_list):
    if len(a_list) != len(b_list):
        raise ExportError(f"the traced graph returns {len(b_list)} tensors but the eager model returns "
                          f"{len(a_list)}", "the model's output structure depends on something the tracer baked in")
    worst = 0.0
    for a, b in zip(a_list, b_list):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ExportError(f"traced output {tuple(b.shape)} {_dtype_name(b.dtype)} differs from eager "
                              f"{tuple(a.shape)} {_dtype_name(a.dtype)}", None)
        if a.numel() == 0:
            continue
        if a.dtype.is_floating_point or a.dtype.is_complex:
            same_nan = torch.isnan(a) == torch.isnan(b)
            if not bool(same_nan.all()):
                return float("nan")
            d = (a.double() - b.double()).abs()
            d = torch.where(torch.isnan(d), torch.zeros_like(d), d)  # nan==nan and inf==inf positions
            worst = max(worst, float(d.max()))
        else:
            worst = max(worst, float((a.long() - b.long()).abs().max()))
    return worst


def _user_frame(tb):
    """The innermost traceback frame that is not inside torch/functorch/this file."""
    pkg_dirs = []
    for name in ("torch", "functorch"):
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None):
            pkg_dirs.append(os.path.dirname(mod.__file__))
    here = os.path.abspath(__file__)
    best = None
    for fs in traceback.extract_tb(tb):
        f = os.path.abspath(fs.filename)
        if f == here or any(f.startswith(d + os.sep) for d in pkg_dirs) or f.startswith("<"):
            continue
        best = fs
    if best is None:
        return None
    return f"{best.filename}:{best.lineno} in {best.name}: {(best.line or '').strip()}"


def _hint_for(exc, tracer):
    msg = f"{type(exc).__name__}: {exc}"
    low = msg.lower()
    if "data-dependent" in low or "data dependent" in low or "guardon" in low or "could not guard" in low:
        return ("the model branches on a tensor value; torch.export needs torch.cond or a fixed branch "
                "(or try --tracer make_fx, which bakes in the branch taken by the example input)")
    if "dynamic" in low and "shape" in low:
        return "the exporter records static shapes: pass concrete --input-shape values"
    if "notimplementederror" in low or "could not run" in low or "no kernel" in low or "not implemented" in low:
        return ("this op has no functional/traceable kernel in torch " + torch.__version__ +
                "; replace it in the model (or wrap it in a module you export separately)")
    if "size mismatch" in low or "shape" in low or "expected" in low:
        return "check --input-shape / --input-dtype: the model must run eagerly on the example input"
    if tracer == "export":
        return "see the torch.export troubleshooting docs; --tracer make_fx is an alternative on torch < 2.5"
    return "run with --traceback for the full Python stack"


# ------------------------------------------------------------- tracing context (make_fx path)

class _TraceState:
    """What the tracer is doing: the module stack, the aten op in flight, the last node made."""

    def __init__(self, root):
        self.paths = {}
        for path, m in _named_modules_all(root):
            self.paths.setdefault(id(m), (path, type(m).__name__))
        self.stack = []
        self.op = None
        self.last_node = None

    def module(self):
        return self.stack[-1][0] if self.stack else ""

    def where(self):
        parts = []
        if self.stack:
            path, tname = self.stack[-1]
            parts.append(f"module '{path or '<root>'}' ({tname})")
        if self.op:
            parts.append(f"op {self.op}")
        if self.last_node:
            parts.append(f"after node '{self.last_node}'")
        return ", ".join(parts)


@contextlib.contextmanager
def _track_modules(root, state):
    handles = []

    def pre(m, _inputs):
        state.stack.append(state.paths.get(id(m), ("?", type(m).__name__)))

    def post(m, _inputs, _out):
        key = state.paths.get(id(m), ("?", type(m).__name__))
        for i in range(len(state.stack) - 1, -1, -1):  # pop up to and including m
            if state.stack[i] == key:
                del state.stack[i:]
                break

    try:
        for _, m in _named_modules_all(root):
            handles.append(m.register_forward_pre_hook(pre))
            handles.append(m.register_forward_hook(post))
        yield
    finally:
        for h in handles:
            h.remove()


@contextlib.contextmanager
def _record_nodes(state):
    """Tag each fx node made while tracing with the current module; remember the op in flight."""
    orig_create = torch.fx.Graph.create_node

    def create_node(self, *args, **kwargs):
        node = orig_create(self, *args, **kwargs)
        node.meta.setdefault("ls_module", state.module())
        if node.op == "call_function":
            state.last_node = node.name
        return node

    pt = None
    orig_proxy_call = None
    try:
        import torch.fx.experimental.proxy_tensor as pt
        orig_proxy_call = getattr(pt, "proxy_call", None)
    except ImportError:
        pass

    def proxy_call(*args, **kwargs):  # (proxy_mode, func, ...) in torch 1.13 - 2.x
        state.op = _safe_str(args[1]) if len(args) > 1 else None
        result = orig_proxy_call(*args, **kwargs)
        state.op = None
        return result

    torch.fx.Graph.create_node = create_node
    if orig_proxy_call is not None:
        pt.proxy_call = proxy_call
    try:
        yield
    finally:
        torch.fx.Graph.create_node = orig_create
        if orig_proxy_call is not None:
            pt.proxy_call = orig_proxy_call


def _safe_str(x):
    try:
        return _op_name(x)
    except Exception:
        return str(x)


@contextlib.contextmanager
def _mha_slow_path():
    """Keep nn.MultiheadAttention / TransformerEncoder(Layer) on the decomposed path.

    Their fused fast path (aten._native_multi_head_attention, _transformer_encoder_layer_fwd)
    is taken in eval + no_grad. torch >= 2.2 has a switch; older versions check
    torch.is_autocast_enabled() (reported True here only while tracing)."""
    mha = getattr(getattr(torch, "backends", None), "mha", None)
    if mha is not None and hasattr(mha, "set_fastpath_enabled"):
        old = mha.get_fastpath_enabled()
        mha.set_fastpath_enabled(False)
        try:
            yield
        finally:
            mha.set_fastpath_enabled(old)
        return
    orig = torch.is_autocast_enabled
    torch.is_autocast_enabled = lambda *a, **k: True
    try:
        yield
    finally:
        torch.is_autocast_enabled = orig


# ------------------------------------------------------------------------- graph rewriting

def _view_copy_target(target):
    """The *_copy twin of a view op (same overload), or None."""
    if not isinstance(target, torch._ops.OpOverload):
        return None
    schema = target._schema
    ns, _, name = schema.name.partition("::")
    if ns != "aten" or name.endswith("_") or not schema.returns:
        return None
    alias = schema.returns[0].alias_info
    if alias is None or alias.is_write:
        return None
    packet = getattr(torch.ops.aten, name + "_copy", None)
    if packet is None:
        return None
    return getattr(packet, target._overloadname, None)


def _view_normalization():
    """make_fx decompositions: reshape's helpers become view_copy while tracing (so node names stay
    in program order). _reshape_alias(_copy)(x, size, stride) only ever carries the strides view()
    would compute; _unsafe_view(x, size) is applied to a fresh contiguous tensor."""
    aten = torch.ops.aten
    table = {}

    def as_view_copy(x, size, *_stride):
        return aten.view_copy.default(x, size)

    for nm in ("_reshape_alias_copy", "_reshape_alias", "_unsafe_view"):
        packet = getattr(aten, nm, None)
        if packet is not None and hasattr(packet, "default"):
            table[packet.default] = as_view_copy
    return table


def _normalize_views(gm, all_views):
    """_reshape_alias(_copy) and _unsafe_view -> view_copy; with all_views, every view op -> *_copy.

    Returns {old op: new op} counts for the producer record."""
    aten = torch.ops.aten
    reshape_like = set()
    for nm in ("_reshape_alias_copy", "_reshape_alias", "_unsafe_view"):
        packet = getattr(aten, nm, None)
        if packet is not None and hasattr(packet, "default"):
            reshape_like.add(packet.default)
    changed = {}
    g = gm.graph
    for node in list(g.nodes):
        if node.op != "call_function":
            continue
        new_target, new_args = None, node.args
        if node.target in reshape_like:
            new_target, new_args = aten.view_copy.default, (node.args[0], node.args[1])
        elif all_views:
            new_target = _view_copy_target(node.target)
        if new_target is None:
            continue
        with g.inserting_before(node):
            base = new_target._schema.name.partition("::")[2]
            new = g.create_node("call_function", new_target, tuple(new_args), dict(node.kwargs), name=base)
        new.meta = dict(node.meta)
        node.replace_all_uses_with(new)
        g.erase_node(node)
        key = f"{_op_name(node.target)} -> {_op_name(new_target)}"
        changed[key] = changed.get(key, 0) + 1
    return changed


def _lift_to_get_attr(gm, placeholder_info):
    """Replace placeholders that carry weights by get_attr nodes on gm.

    placeholder_info: {placeholder node: (fqn or None, tensor, kind, preferred attr name)}.
    Returns {attr name: (fqn, tensor, kind)}."""
    g = gm.graph
    first = next((n for n in g.nodes if n not in placeholder_info), None)
    consts = {}
    used = set(dict(gm.named_parameters()).keys()) | set(dict(gm.named_buffers()).keys())
    used |= {n for n, _ in gm.named_children()}
    for ph, (fqn, tensor, kind, attr) in placeholder_info.items():
        base = attr or "const"
        name, i = base, 1
        while name in used or hasattr(gm, name):
            name, i = f"{base}_{i}", i + 1
        used.add(name)
        gm.register_buffer(name, tensor.detach() if isinstance(tensor, torch.Tensor) else tensor)
        with (g.inserting_before(first) if first is not None else g.inserting_after()):
            ga = g.create_node("get_attr", name, name=name)
        ga.meta = {k: v for k, v in ph.meta.items() if k in ("val", "tensor_meta")}
        ga.meta["ls_module"] = _module_of_fqn(fqn) if fqn else ""
        ph.replace_all_uses_with(ga)
        g.erase_node(ph)
        consts[name] = (fqn, tensor, kind)
    return consts


def _flat_output(gm):
    """Make the output node return a flat tuple of nodes (pytree leaves that are nodes)."""
    g = gm.graph
    out = next(n for n in reversed(g.nodes) if n.op == "output")
    leaves, _ = torch.utils._pytree.tree_flatten(out.args[0])
    nodes = [x for x in leaves if isinstance(x, torch.fx.Node)]
    out.args = (tuple(nodes),)
    try:
        g._codegen = torch.fx.graph.CodeGen()  # drop pytree in/out specs: flat inputs, flat outputs
    except AttributeError:
        pass
    return nodes


def _collect_getattr_constants(gm, consts, by_id):
    """get_attr nodes the tracer created itself (tensor constants): classify them."""
    for node in gm.graph.nodes:
        if node.op != "get_attr" or node.target in consts:
            continue
        obj = gm
        for part in str(node.target).split("."):
            obj = getattr(obj, part)
        if not isinstance(obj, torch.Tensor):
            raise ExportError(f"node '{node.name}': get_attr {node.target!r} is a {type(obj).__name__}, "
                              "not a tensor", "fxjson constants must be tensors")
        known = by_id.get(id(obj))
        if known is not None:
            fqn, kind = known
        else:
            fqn, kind = None, "constant"
        consts[str(node.target)] = (fqn, obj, kind)
        node.meta.setdefault("ls_module", _module_of_fqn(fqn) if fqn else node.meta.get("ls_module", ""))


# --------------------------------------------------------------------------- the two tracers

def _functional_api():
    """(functionalize, functional_call) for torch 1.13 - 2.x."""
    try:
        from torch.func import functionalize, functional_call  # torch >= 2.0
        return functionalize, functional_call
    except ImportError:
        from functorch import functionalize  # torch 1.13
        from torch.nn.utils.stateless import functional_call
        return functionalize, functional_call


def _trace_make_fx(module, inputs):
    from torch.fx.experimental.proxy_tensor import make_fx
    functionalize, functional_call = _functional_api()
    named = _named_tensors(module)
    state_dict = {}
    for fqn, t, _kind in named:
        state_dict.setdefault(fqn, t)
    keys = list(state_dict.keys())
    by_id = {}
    for fqn, t, kind in named:
        by_id.setdefault(id(t), (fqn, kind))

    def f(state, *args):
        return functional_call(module, state, tuple(args))

    trace = _TraceState(module)
    try:
        with torch.no_grad(), _mha_slow_path(), _track_modules(module, trace), _record_nodes(trace):
            gm = make_fx(functionalize(f, remove="mutations_and_views"), decomposition_table=_view_normalization(),
                         tracing_mode="real")(state_dict, *inputs)
    except ExportError:
        raise
    except Exception as e:
        where = trace.where()
        user = _user_frame(e.__traceback__)
        msg = f"tracing failed{(' in ' + where) if where else ''}: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        if user:
            msg += f"\n  at {user}"
        raise ExportError(msg, _hint_for(e, "make_fx")) from e

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(keys) + len(inputs):
        raise ExportError(f"make_fx produced {len(placeholders)} inputs, expected {len(keys)} weights + "
                          f"{len(inputs)} inputs", "inputs must be tensors (no nested structures)")
    info = {}
    for ph, fqn in zip(placeholders[:len(keys)], keys):
        t = state_dict[fqn]
        kind = "parameter" if isinstance(t, torch.nn.Parameter) else "buffer"
        info[ph] = (fqn, t, kind, fqn.replace(".", "_"))
    input_nodes = placeholders[len(keys):]
    changed = _normalize_views(gm, all_views=False)
    consts = _lift_to_get_attr(gm, info)
    _flat_output(gm)
    gm.graph.eliminate_dead_code()
    _collect_getattr_constants(gm, consts, by_id)
    gm.recompile()
    trace_info = {"tracer": "make_fx", "tracing_mode": "real", "eval": True, "no_grad": True,
                  "view_normalization": True, "mha_slow_path": True, "dce": True,
                  "strategy": "functionalize+functional_call", "functionalized": True, "params_lifted": True,
                  "module_attribution": "forward hooks: innermost module running when the op was recorded"}
    if changed:
        trace_info["normalized_ops"] = changed
    return gm, consts, input_nodes, trace_info


def _normalize_module_path(p):
    """nn_module_stack path ('features.4.conv.1', "L['self'].features[4]", 'L__self___features_4') -> fqn."""
    if not isinstance(p, str):
        return ""
    s = p.strip()
    s = re.sub(r"^L\['self'\]\.?", "", s)
    s = re.sub(r"^L\[\"self\"\]\.?", "", s)
    s = re.sub(r"^self\.?", "", s)
    s = re.sub(r"getattr\(\s*([^,]+?)\s*,\s*['\"]([^'\"]+)['\"]\s*\)", r"\1.\2", s)
    s = re.sub(r"\._modules\[['\"]([^'\"]+)['\"]\]", r".\1", s)
    s = re.sub(r"\[['\"]([^'\"]+)['\"]\]", r".\1", s)
    s = re.sub(r"\[(\d+)\]", r".\1", s)
    s = re.sub(r"^L\.self\.?", "", s)
    s = s.strip(".")
    return s


def _trace_export(module, inputs, program=None):
    """torch >= 2.1: torch.export -> core ATen -> *_copy views. Untested in this repository's CI."""
    try:
        import torch.ao.quantization.fx._decomposed  # noqa: F401  registers quantized_decomposed ops
    except Exception:
        pass
    stage = "torch.export.export"
    try:
        with torch.no_grad(), _mha_slow_path():
            ep = program if program is not None else torch.export.export(module, tuple(inputs))
            stage = "run_decompositions (core ATen)"
            ep = ep.run_decompositions()
    except Exception as e:
        user = _user_frame(e.__traceback__)
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        msg = f"{stage} failed: {type(e).__name__}: {first}"
        m = re.search(r"(aten\.[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?)", str(e))
        if m:
            msg += f" (op {m.group(1)})"
        if user:
            msg += f"\n  at {user}"
        raise ExportError(msg, _hint_for(e, "export")) from e

    gm = ep.graph_module
    sig = ep.graph_signature
    params = dict(getattr(sig, "inputs_to_parameters", {}) or {})
    buffers = dict(getattr(sig, "inputs_to_buffers", {}) or {})
    lifted = dict(getattr(sig, "inputs_to_lifted_tensor_constants", {}) or {})
    user_inputs = list(getattr(sig, "user_inputs", []) or [])
    mutated = dict(getattr(sig, "buffers_to_mutate", {}) or {})
    state = dict(ep.state_dict)
    consts_store = {}
    for attr in ("constants", "tensor_constants"):
        consts_store.update(dict(getattr(ep, attr, {}) or {}))
    module_tensors = {}
    if module is not None:
        for fqn, t, kind in _named_tensors(module):
            module_tensors.setdefault(fqn, kind)

    info, input_nodes = {}, []
    for ph in [n for n in gm.graph.nodes if n.op == "placeholder"]:
        if ph.name in params:
            fqn = params[ph.name]
            info[ph] = (fqn, state[fqn], "parameter", fqn.replace(".", "_"))
        elif ph.name in buffers:
            fqn = buffers[ph.name]
            t = state[fqn] if fqn in state else consts_store[fqn]
            info[ph] = (fqn, t, "buffer", fqn.replace(".", "_"))
        elif ph.name in lifted:
            name = lifted[ph.name]
            fqn = name if (module is None or name in module_tensors or "lifted" not in name) else None
            info[ph] = (fqn, consts_store[name], "constant", name.replace(".", "_"))
        elif not user_inputs or ph.name in user_inputs:
            input_nodes.append(ph)
        else:
            raise ExportError(f"placeholder '{ph.name}' is neither a user input nor a parameter/buffer/constant "
                              "(custom objects and effect tokens are not supported)", None)
    changed = _normalize_views(gm, all_views=True)
    consts = _lift_to_get_attr(gm, info)
    outs = _flat_output(gm)
    if mutated:
        out = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
        out.args = (tuple(outs[len(mutated):]),)
        print(f"export_fxjson: warning: the program mutates buffers {sorted(mutated.values())}; "
              "those updates are dropped", file=sys.stderr)
    gm.graph.eliminate_dead_code()
    _collect_getattr_constants(gm, consts, {})
    for node in gm.graph.nodes:
        stack = node.meta.get("nn_module_stack")
        if stack and "ls_module" not in node.meta:
            last = list(stack.values())[-1]
            path = last[0] if isinstance(last, (tuple, list)) else last
            node.meta["ls_module"] = _normalize_module_path(path)
    gm.recompile()
    trace_info = {"tracer": "torch.export", "decompositions": "core_aten", "eval": True, "no_grad": True,
                  "view_normalization": True, "mha_slow_path": True, "dce": True,
                  "functionalized": True, "params_lifted": True,
                  "module_attribution": "node.meta['nn_module_stack'] (innermost entry)"}
    if changed:
        trace_info["normalized_ops"] = changed
    return gm, consts, input_nodes, trace_info, ep


# --------------------------------------------------------------------------------- encoding

def _encode_arg(a, names, where):
    if isinstance(a, torch.fx.Node):
        return {"node": names[a]}
    if a is None or isinstance(a, (bool, str)):
        return a
    if isinstance(a, int):
        return int(a)
    if isinstance(a, float):
        if math.isnan(a):
            return {"float": "nan"}
        if math.isinf(a):
            return {"float": "inf" if a > 0 else "-inf"}
        return a
    if isinstance(a, (list, tuple)):
        return [_encode_arg(x, names, where) for x in a]
    if isinstance(a, torch.dtype):
        return {"enum": str(a), "kind": "dtype"}
    if isinstance(a, torch.layout):
        return {"enum": str(a), "kind": "layout"}
    if isinstance(a, torch.memory_format):
        return {"enum": str(a), "kind": "memory_format"}
    if isinstance(a, torch.device):
        return {"enum": str(a), "kind": "device"}
    if isinstance(a, slice):
        return {"slice": [_encode_arg(a.start, names, where), _encode_arg(a.stop, names, where),
                          _encode_arg(a.step, names, where)]}
    sym = tuple(getattr(torch, n) for n in ("SymInt", "SymFloat", "SymBool") if hasattr(torch, n))
    if sym and isinstance(a, sym):
        raise ExportError(f"{where}: symbolic value {a} (dynamic shapes are not supported)",
                          "export with static shapes (no dynamic_shapes)")
    if isinstance(a, torch.Tensor):
        raise ExportError(f"{where}: an inline tensor argument", "tensors must be graph nodes or constants")
    raise ExportError(f"{where}: cannot encode an argument of type {type(a).__name__}: {a!r}", None)


def _meta_of(value):
    if isinstance(value, torch.Tensor):
        return {"shape": [int(s) for s in value.shape], "dtype": _dtype_name(value.dtype)}
    if isinstance(value, (tuple, list)):
        shapes, dtypes = [], []
        for v in value:
            if isinstance(v, torch.Tensor):
                shapes.append([int(s) for s in v.shape])
                dtypes.append(_dtype_name(v.dtype))
            else:
                shapes.append(None)
                dtypes.append(None)
        return {"shapes": shapes, "dtypes": dtypes}
    return {}


class _Recorder(torch.fx.Interpreter if torch is not None else object):
    """Runs the final graph on real inputs, keeping each node's output shape/dtype."""

    def __init__(self, gm):
        super().__init__(gm)
        self.meta = {}

    def run_node(self, n):
        try:
            result = super().run_node(n)
        except Exception as e:
            module = n.meta.get("ls_module", "")
            raise ExportError(f"re-running the traced graph failed at node '{n.name}' "
                              f"({_safe_str(n.target)}{', module ' + repr(module) if module else ''}): "
                              f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}",
                              "the traced graph is not runnable on this torch; please report it") from e
        if n.op != "output":
            self.meta[n] = _meta_of(result)
        else:
            self.meta[n] = _meta_of(tuple(result) if isinstance(result, (tuple, list)) else (result,))
        return result


def _input_names(module, count):
    names = []
    if module is not None:
        try:
            sig = inspect.signature(module.forward)
            for p in sig.parameters.values():
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    names.append(p.name)
        except (TypeError, ValueError):
            pass
    names = names[:count]
    while len(names) < count:
        names.append(f"input_{len(names)}")
    return names


def _to_document(gm, consts, input_nodes, node_meta, *, weights, name, input_names, producer, example_inputs):
    names = {}
    taken = set()
    wanted = dict(zip(input_nodes, input_names))
    for node in gm.graph.nodes:  # fx names are unique; renamed inputs must not collide with them
        if node not in wanted:
            taken.add(node.name)
    for node in gm.graph.nodes:
        n = wanted.get(node, node.name)
        if node in wanted:
            base, i = n, 1
            while n in taken or not n:
                n, i = f"{base}_input{'' if i == 1 else i}", i + 1
            taken.add(n)
        names[node] = n

    nodes = []
    for node in gm.graph.nodes:
        where = f"node '{names[node]}'"
        if node.op == "placeholder":
            target = names[node]
        elif node.op == "get_attr":
            target = str(node.target)
        elif node.op == "call_function":
            target = _op_name(node.target)
            where += f" ({target})"
        elif node.op == "output":
            target = "output"
        else:
            raise ExportError(f"{where}: unsupported fx op {node.op!r} (target {node.target!r})",
                              "call_module / call_method nodes mean the graph was not traced to ATen")
        if node.op == "output":
            args = [[_encode_arg(x, names, where) for x in node.args[0]]]
        else:
            args = [_encode_arg(a, names, where) for a in node.args]
        kwargs = {k: _encode_arg(v, names, where) for k, v in node.kwargs.items()}
        meta = dict(node_meta.get(node, {}))
        module = node.meta.get("ls_module", "")
        if module and node.op in ("call_function", "get_attr"):
            meta["module"] = module
        nodes.append({"name": names[node], "op": node.op, "target": target, "args": args, "kwargs": kwargs,
                      "meta": meta})

    constants = {}
    for node in gm.graph.nodes:
        if node.op != "get_attr":
            continue
        key = str(node.target)
        if key in constants:
            continue
        fqn, t, kind = consts[key]
        c = {"shape": [int(s) for s in t.shape], "dtype": _dtype_name(t.dtype), "fqn": fqn, "kind": kind}
        if weights or t.numel() <= SMALL_CONSTANT_ELEMENTS:
            c["data_b64"] = base64.b64encode(_tensor_bytes(t)).decode("ascii")
        constants[key] = c

    out_node = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "model": name,
        "nodes": nodes,
        "constants": constants,
        "inputs": [names[n] for n in input_nodes],
        "outputs": [names[n] for n in out_node.args[0]],
        "producer": producer,
        "example_inputs": [{"shape": [int(s) for s in t.shape], "dtype": _dtype_name(t.dtype)}
                           for t in example_inputs],
    }


def _write(doc, path):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    text = json.dumps(doc, allow_nan=False, separators=(", ", ": "))  # the C encoder; json.dump streams in Python
    with open(tmp, "w") as f:
        f.write(text)
        f.write("\n")
    os.replace(tmp, path)


# ------------------------------------------------------------------------------ public API

def _as_tuple(example_inputs):
    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,)
    t = tuple(example_inputs)
    for i, x in enumerate(t):
        if not isinstance(x, torch.Tensor):
            raise ExportError(f"example input {i} is a {type(x).__name__}; only tensors are supported",
                              "wrap the model so that its forward takes tensors only")
    return t


# Fused kernels a torch build may record instead of their decomposition; none has a lowering.
_FUSED_OPS = {
    "aten._transformer_encoder_layer_fwd": "the TransformerEncoderLayer fast path",
    "aten._native_multi_head_attention": "the MultiheadAttention fast path",
    "aten._scaled_dot_product_flash_attention": "a fused scaled-dot-product attention kernel",
    "aten._scaled_dot_product_efficient_attention": "a fused scaled-dot-product attention kernel",
    "aten._thnn_fused_lstm_cell": "the fused LSTM cell kernel",
    "aten._thnn_fused_gru_cell": "the fused GRU cell kernel",
}


def _reject_fused(gm):
    """A fused kernel that reached the graph: an error naming its node and module, and how to avoid it."""
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        op = _op_name(node.target)
        base = op.rsplit(".", 1)[0] if op.count(".") >= 2 else op
        what = _FUSED_OPS.get(base)
        if what is None:
            continue
        module = node.meta.get("ls_module") or "<root>"
        raise ExportError(
            f"node '{node.name}' ({op}) in module '{module}' is {what}, a fused kernel with no lowering",
            "export the module through export_module or the CLI, which keep nn.MultiheadAttention and "
            "nn.TransformerEncoder(Layer) on their decomposed path; where the model calls the fused kernel itself, "
            "call the nn module instead; on torch >= 2.2 torch.backends.mha.set_fastpath_enabled(False) also "
            "turns the fast path off")


def _finish(gm, consts, input_nodes, trace_info, eager_out, inputs, *, weights, name, input_names, path,
            tolerance, extra_producer, log):
    _reject_fused(gm)
    t0 = time.time()
    rec = _Recorder(gm)
    with torch.no_grad():
        traced_out = rec.run(*inputs)
    traced = list(traced_out) if isinstance(traced_out, (tuple, list)) else [traced_out]
    diff = _max_abs_diff(eager_out, traced)
    trace_info["trace_vs_eager_max_abs_diff"] = diff
    scale = max([1.0] + [float(t.double().abs().max()) for t in eager_out
                         if t.numel() and (t.dtype.is_floating_point) and torch.isfinite(t).all()])
    if not (diff <= tolerance * scale):
        raise ExportError(f"the traced graph's output differs from the eager model: max abs diff {diff} "
                          f"(tolerance {tolerance} x {scale:g})",
                          "the model reads tensor values into Python (.item(), .numpy(), .tolist()), uses "
                          "randomness or global state, or an op is not functionalized faithfully (e.g. resize_) "
                          "in this torch; export a smaller part of the model to find it")
    producer = {"tool": TOOL, "torch": torch.__version__, "trace": trace_info}
    producer.update(extra_producer or {})
    producer["weights"] = "all" if weights else f"only constants with <= {SMALL_CONSTANT_ELEMENTS} elements"
    doc = _to_document(gm, consts, input_nodes, rec.meta, weights=weights, name=name, input_names=input_names,
                       producer=producer, example_inputs=inputs)
    if path:
        _write(doc, path)
    if log:
        ncall = sum(1 for n in doc["nodes"] if n["op"] == "call_function")
        log(f"export_fxjson: {name}: {len(doc['nodes'])} nodes ({ncall} call_function), "
            f"{len(doc['constants'])} constants, trace vs eager max abs diff {diff:g}"
            f"{', wrote ' + path if path else ''} ({time.time() - t0:.1f} s to check and write)")
    return doc


def export_module(module, example_inputs, path=None, *, weights=False, name=None, tracer="auto",
                  tolerance=1e-4, producer=None, log=None):
    """Trace `module` on `example_inputs` (a tensor or a tuple of tensors) and return the fxjson
    document as a dict; also write it to `path` when given.

    weights: embed every constant's data (otherwise only constants with <= 64 elements).
    name: the "model" field (default: the module's class name).
    tracer: "auto" (torch.export on torch >= 2.1, else make_fx), "export" or "make_fx".
    tolerance: maximum |traced - eager| relative to max(1, max |eager|) before failing.
    producer: extra informational keys for the "producer" block.
    Raises ExportError (with .hint) naming the node/op/module when tracing fails."""
    if torch is None:
        raise ExportError("torch is not importable", "install torch (Debian: apt-get install python3-torch)")
    inputs = _as_tuple(example_inputs)
    if tracer == "auto":
        tracer = "export" if _has_torch_export() else "make_fx"
    if tracer == "export" and not _has_torch_export():
        raise ExportError(f"tracer 'export' needs torch >= 2.1 (this is {torch.__version__})", "use --tracer make_fx")
    name = name or type(module).__name__
    t0 = time.time()
    module.eval()
    try:
        with torch.no_grad():
            eager_out = _flatten_outputs(module(*inputs))
    except Exception as e:
        user = _user_frame(e.__traceback__)
        raise ExportError(f"the model fails in eager mode on the example inputs "
                          f"{[tuple(t.shape) for t in inputs]}: {type(e).__name__}: "
                          f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}" + (f"\n  at {user}" if user else ""),
                          "pass the input shape the model expects (--input-shape, --input-dtype)") from e
    if not eager_out:
        raise ExportError("the model returns no tensor", None)
    if tracer == "export":
        gm, consts, input_nodes, info, _ep = _trace_export(module, inputs)
    else:
        gm, consts, input_nodes, info = _trace_make_fx(module, inputs)
    info["trace_seconds"] = round(time.time() - t0, 3)
    return _finish(gm, consts, input_nodes, info, eager_out, inputs, weights=weights, name=name,
                   input_names=_input_names(module, len(inputs)), path=path, tolerance=tolerance,
                   extra_producer=producer, log=log)


def export_program(program, example_inputs=None, path=None, *, weights=False, name=None, tolerance=1e-4,
                   producer=None, log=None):
    """Export a torch.export ExportedProgram (torch >= 2.1), e.g. torch.export.load('m.pt2').
    Without example_inputs, random inputs are made from the program's recorded input shapes."""
    if not _has_torch_export():
        raise ExportError(f"ExportedPrograms need torch >= 2.1 (this is {torch.__version__})", None)
    if example_inputs is None:
        example_inputs = _program_example_inputs(program)
    inputs = _as_tuple(example_inputs)
    runner = program.module() if hasattr(program, "module") else program
    with torch.no_grad():
        eager_out = _flatten_outputs(runner(*inputs))
    t0 = time.time()
    gm, consts, input_nodes, info, _ep = _trace_export(None, inputs, program=program)
    info["trace_seconds"] = round(time.time() - t0, 3)
    user_names = [n.name for n in input_nodes]
    return _finish(gm, consts, input_nodes, info, eager_out, inputs, weights=weights, name=name or "program",
                   input_names=user_names, path=path, tolerance=tolerance, extra_producer=producer, log=log)


def _program_example_inputs(program):
    ex = getattr(program, "example_inputs", None)
    if ex:
        args = ex[0] if isinstance(ex, tuple) and len(ex) == 2 and isinstance(ex[1], dict) else ex
        return tuple(args)
    user = set(getattr(program.graph_signature, "user_inputs", []) or [])
    out = []
    for n in program.graph.nodes:
        if n.op == "placeholder" and n.name in user:
            v = n.meta.get("val")
            if not isinstance(v, torch.Tensor):
                raise ExportError(f"input '{n.name}' has no recorded tensor shape", "pass --input-shape")
            out.append(_random_tensor([int(s) for s in v.shape], v.dtype))
    return tuple(out)


# ---------------------------------------------------------------- model shortcuts (CLI/tests)

_TORCHVISION_SHAPES = {"inception_v3": (1, 3, 299, 299)}
_VIDEO_PREFIXES = ("r3d_", "mc3_", "r2plus1d_", "s3d", "mvit_", "swin3d_")
_TORCHAUDIO_SHAPES = {"wav2letter": (1, 1, 16000), "convtasnet": (1, 1, 16000), "conv_tasnet_base": (1, 1, 16000),
                      "wav2vec2_base": (1, 16000), "hubert_base": (1, 16000), "wavlm_base": (1, 16000)}


def _random_tensor(shape, dtype):
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(*shape, dtype=dtype)
    if dtype == torch.bool:
        return torch.rand(*shape) > 0.5
    return torch.randint(0, 10, tuple(shape), dtype=dtype)


def make_example_inputs(shapes, dtypes=None, seed=0):
    """Deterministic random example inputs: a list of shapes (lists of ints), optional dtypes."""
    g_state = torch.random.get_rng_state()
    torch.manual_seed(seed + 1)
    try:
        dtypes = list(dtypes or [])
        out = []
        for i, s in enumerate(shapes):
            dt = dtypes[i] if i < len(dtypes) else (dtypes[-1] if dtypes else torch.float32)
            out.append(_random_tensor(list(s), dt))
        return tuple(out)
    finally:
        torch.random.set_rng_state(g_state)


def _load_factory(spec):
    mod_part, _, attr = spec.rpartition(":")
    if mod_part.endswith(".py") or os.sep in mod_part:
        path = os.path.abspath(mod_part)
        if not os.path.exists(path):
            raise ExportError(f"no such file {mod_part!r}", None)
        sys.path.insert(0, os.path.dirname(path))
        mspec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
        mod = importlib.util.module_from_spec(mspec)
        mspec.loader.exec_module(mod)
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            mod = importlib.import_module(mod_part)
        except ImportError as e:
            raise ExportError(f"cannot import {mod_part!r}: {e}", "run from the directory that contains the "
                              "package, or set PYTHONPATH") from e
    obj = mod
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ExportError(f"{mod_part!r} has no attribute {attr!r}", None)
        obj = getattr(obj, part)
    return mod, obj


def build_from_spec(spec, seed=0, model_kwargs=None):
    """'torchvision:NAME' | 'torchaudio:NAME' | 'pkg.module:factory' | 'file.py:factory'
    -> (module, default input shapes or None, default name). Weights are random (seeded), never
    downloaded."""
    model_kwargs = dict(model_kwargs or {})
    torch.manual_seed(seed)
    kind, _, name = spec.partition(":")
    if kind == "torchvision":
        import torchvision
        try:
            builder = torchvision.models.get_model_builder(name) if hasattr(torchvision.models, "get_model_builder") \
                else getattr(torchvision.models, name)
        except (ValueError, AttributeError) as e:
            raise ExportError(f"torchvision has no model {name!r}",
                              "see torchvision.models.list_models() for the names") from e
        kw = {"weights": None}
        try:
            if "weights_backbone" in inspect.signature(builder).parameters:
                kw["weights_backbone"] = None  # segmentation/detection: no pretrained backbone download
        except (TypeError, ValueError):
            pass
        kw.update(model_kwargs)
        model = builder(**kw)
        shape = _TORCHVISION_SHAPES.get(name)
        if shape is None:
            shape = (1, 3, 16, 112, 112) if name.startswith(_VIDEO_PREFIXES) else (1, 3, 224, 224)
        return model, [list(shape)], name
    if kind == "torchaudio":
        try:
            import torchaudio
        except ImportError as e:
            raise ExportError("torchaudio is not installed", "Debian: apt-get install python3-torchaudio") from e
        cands = {k.lower(): k for k in dir(torchaudio.models)
                 if not k.startswith("_") and callable(getattr(torchaudio.models, k))}
        key = cands.get(name.lower())
        if key is None:
            raise ExportError(f"torchaudio.models has no {name!r}", f"one of: {', '.join(sorted(cands.values()))}")
        model = getattr(torchaudio.models, key)(**model_kwargs)
        shape = _TORCHAUDIO_SHAPES.get(name.lower()) or _TORCHAUDIO_SHAPES.get(key.lower())
        return model, ([list(shape)] if shape else None), name
    if not name:
        raise ExportError(f"cannot read model spec {spec!r}",
                          "use torchvision:NAME, torchaudio:NAME, package.module:factory or file.py:factory")
    mod, factory = _load_factory(spec)
    model = factory(**model_kwargs) if callable(factory) and not isinstance(factory, torch.nn.Module) else factory
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"{spec} returned a {type(model).__name__}, not a torch.nn.Module", None)
    shapes = None
    ex = getattr(mod, "example_input_shapes", None)
    if ex is not None:
        shapes = [list(s) for s in (ex() if callable(ex) else ex)]
    return model, shapes, name.split(".")[-1]


def _parse_shape(s):
    try:
        return [int(x) for x in s.replace("x", ",").split(",") if x.strip()]
    except ValueError:
        raise ExportError(f"bad --input-shape {s!r}", "write it as 1,3,224,224")


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Export a PyTorch model to Lowerscope's fxjson format (docs/FXJSON.md).",
        epilog="examples: torchvision:mobilenet_v2 | torchaudio:wav2letter | my_pkg.models:build --input-shape 1,16 | "
               "model.py:build | program.pt2")
    ap.add_argument("model", help="torchvision:NAME, torchaudio:NAME, package.module:factory, file.py:factory, "
                                  "or a saved ExportedProgram .pt2 (torch >= 2.1)")
    ap.add_argument("-o", "--output", help="output file (default: NAME.fxjson.json)")
    ap.add_argument("--input-shape", action="append", default=[],
                    help="example input shape such as 1,3,224,224 (repeat for several inputs)")
    ap.add_argument("--input-dtype", action="append", default=[],
                    help="example input dtype (float32 by default; integer inputs are drawn from 0..9)")
    ap.add_argument("--weights", action="store_true", help="embed every weight (default: only <= 64 elements)")
    ap.add_argument("--seed", type=int, default=0, help="seed for random weights and inputs (default 0)")
    ap.add_argument("--name", help="the model name written to the file")
    ap.add_argument("--model-kwargs", default="{}", help="JSON keyword arguments for the factory, e.g. "
                                                        "'{\"num_classes\": 10}'")
    ap.add_argument("--tracer", choices=["auto", "export", "make_fx"], default="auto",
                    help="auto: torch.export on torch >= 2.1, make_fx before")
    ap.add_argument("--tolerance", type=float, default=1e-4, help="allowed traced-vs-eager difference (relative)")
    ap.add_argument("--traceback", action="store_true", help="show the full Python stack on errors")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    log = None if args.quiet else (lambda s: print(s, file=sys.stderr))
    if torch is None:
        print("export_fxjson: error: torch is not importable by " + sys.executable, file=sys.stderr)
        print("hint: install it (Debian 12: apt-get install python3-torch python3-torchvision) and run "
              "/usr/bin/python3", file=sys.stderr)
        return 2
    try:
        t0 = time.time()
        kwargs = json.loads(args.model_kwargs)
        dtypes = [_parse_dtype(d) for d in args.input_dtype]
        shapes = [_parse_shape(s) for s in args.input_shape]
        extra = {"source": args.model, "seed": args.seed}
        if args.model.endswith(".pt2") and ":" not in args.model:
            if not _has_torch_export():
                raise ExportError(f".pt2 programs need torch >= 2.1 (this is {torch.__version__})", None)
            program = torch.export.load(args.model)
            inputs = make_example_inputs(shapes, dtypes, args.seed) if shapes else None
            name = args.name or os.path.basename(args.model)[:-4]
            out = args.output or f"{name}.fxjson.json"
            export_program(program, inputs, out, weights=args.weights, name=name, tolerance=args.tolerance,
                           producer=extra, log=log)
        else:
            model, default_shapes, default_name = build_from_spec(args.model, args.seed, kwargs)
            shapes = shapes or default_shapes
            if not shapes:
                raise ExportError(f"no input shape known for {args.model}", "pass --input-shape, e.g. 1,3,224,224")
            inputs = make_example_inputs(shapes, dtypes, args.seed)
            name = args.name or default_name
            out = args.output or f"{name}.fxjson.json"
            if log:
                log(f"export_fxjson: tracing {args.model} on {[list(t.shape) for t in inputs]} with torch "
                    f"{torch.__version__} ({'torch.export' if (args.tracer == 'export' or (args.tracer == 'auto' and _has_torch_export())) else 'make_fx'})")
            export_module(model, inputs, out, weights=args.weights, name=name, tracer=args.tracer,
                          tolerance=args.tolerance, producer=extra, log=log)
        if log:
            log(f"export_fxjson: done in {time.time() - t0:.1f} s")
        return 0
    except ExportError as e:
        if args.traceback:
            traceback.print_exc()
        print(f"export_fxjson: error: {e}", file=sys.stderr)
        if e.hint:
            print(f"hint: {e.hint}", file=sys.stderr)
        return 1
    except Exception as e:  # unexpected: show where
        traceback.print_exc() if args.traceback else None
        lines = str(e).strip().splitlines() or [""]
        more = f" [... {len(lines) - 3} more lines]" if len(lines) > 3 else ""
        print(f"export_fxjson: error: {type(e).__name__}: " + "\n  ".join(lines[:3]) + more, file=sys.stderr)
        print("hint: run with --traceback for the full Python stack", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
