"""Record a Python (torch.fx) pass pipeline into a Lowerscope trace bundle (docs/BUNDLE.md).

One line around an existing call:

    import sys; sys.path.insert(0, "tools")
    from lowerscope_record import record, record_pass_manager

    with record("arm_lowering.lsbundle"):          # every PassManager called inside is recorded
        edge = to_backend(...)                      # or pm(graph_module), ArmPassManager(...)...

    record_pass_manager(pm, graph_module, "run.lsbundle")      # one PassManager (or a list of passes)

then `lowerscope-cli import-trace run.lsbundle -o run.lstrace`, or open the bundle directly in the
app, `lowerscope-cli export` and `compare` (compare lines a Python run up with an engine run by
pass name).

Per pass it records: the name, wall and CPU time, PassResult.modified, whether the pass has a
should-run hook (`should_run_pass(graph_module)`) and what it returned (False: skipped with reason
"should_run_pass returned False", plus its target ops when it declares `targeted_ops`, `target_ops`
or `_TARGET_OPS`), an exception (failed, with the message; then re-raised), and the graph after the
pass as fxjson (shapes/dtypes from node.meta, module paths; weight bytes only with weights=True).
A snapshot is written only when the graph's structure changed (an exact structural key per node:
name, op, target, args, kwargs, shape/dtype), and a graph seen before is stored once.

Works with torch.fx.passes.infra.pass_manager.PassManager and its subclasses (ExecuTorch's
PassManager, ExportedProgramPassManager, ArmPassManager) and with a plain list of passes. What it
relies on of those APIs is listed in docs/BUNDLE.md ("Upstream API the recorder relies on").
Only torch is needed.
"""

import base64
import contextlib
import functools
import inspect
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import torch  # noqa: E402
import torch.fx  # noqa: E402

from export_fxjson import (  # noqa: E402  (one encoder of fxjson, shared with the exporter)
    FORMAT, FORMAT_VERSION, SMALL_CONSTANT_ELEMENTS, ExportError, _dtype_name, _encode_arg, _meta_of,
    _normalize_module_path, _op_name, _tensor_bytes, _write)

BUNDLE_FORMAT = "lowerscope-bundle"
BUNDLE_VERSION = 1
SKIP_REASON = "should_run_pass returned False"
OUTSIDE_PASSES = "(outside any pass)"
TARGET_OP_ATTRIBUTES = ("targeted_ops", "target_ops", "_TARGET_OPS")

try:
    from torch.fx.passes.infra.pass_manager import PassManager as _FxPassManager
except ImportError:  # torch < 1.13
    _FxPassManager = None


class RecorderError(RuntimeError):
    pass


# ------------------------------------------------------------------------------ graph snapshots

def _graph_module_of(x):
    """The GraphModule in a pass's input or result (GraphModule, PassResult, ExportedProgram,
    ExportedProgramPassResult), or None."""
    if isinstance(x, torch.fx.GraphModule):
        return x
    for attr in ("graph_module", "exported_program"):
        inner = getattr(x, attr, None)
        if inner is not None and inner is not x:
            gm = _graph_module_of(inner)
            if gm is not None:
                return gm
    return None


def _program_of(x):
    """The ExportedProgram (duck-typed: graph_module + graph_signature) in a pass's input or result."""
    if hasattr(x, "graph_signature") and hasattr(x, "graph_module"):
        return x
    ep = getattr(x, "exported_program", None)
    return ep if ep is not None and hasattr(ep, "graph_signature") else None


def _meta_key(node):
    val = node.meta.get("val")
    if val is None:
        val = node.meta.get("tensor_meta")
    if val is None:
        return None
    if hasattr(val, "shape"):  # a tensor, or a TensorMetadata (a NamedTuple: not a tuple of values)
        return (tuple(val.shape), val.dtype)
    if isinstance(val, (tuple, list)):
        return tuple(_meta_key_one(v) for v in val)
    return None


def _meta_key_one(v):
    shape = getattr(v, "shape", None)
    dtype = getattr(v, "dtype", None)
    if shape is None:
        return None
    return (tuple(shape), dtype)


_SCALARS = (int, float, bool, str, type(None))


def _arg_key(a):
    t = type(a)
    if t is torch.fx.Node:
        return ("%", a.name)
    if t in _SCALARS:
        return a
    if isinstance(a, (list, tuple)):
        return tuple([_arg_key(x) for x in a])
    if isinstance(a, dict):
        return tuple([(k, _arg_key(v)) for k, v in a.items()])
    if t is slice:
        return ("slice", _arg_key(a.start), _arg_key(a.stop), _arg_key(a.step))
    try:
        hash(a)
        return a
    except TypeError:
        return repr(a)


def structural_key(gm):
    """Exact structure of a graph: per node its name, op, target, args, kwargs and shape/dtype.
    Equal keys mean the same fxjson snapshot (constant values are not part of it)."""
    return tuple([(n.name, n.op, n.target, _arg_key(n.args), _arg_key(n.kwargs) if n.kwargs else (), _meta_key(n))
                  for n in gm.graph.nodes])


def _meta_of_node(node):
    val = node.meta.get("val")
    if val is not None:
        return _meta_of(val)
    tm = node.meta.get("tensor_meta")
    if tm is None:
        return {}
    if isinstance(tm, (tuple, list)) and not hasattr(tm, "shape"):
        return {"shapes": [[int(s) for s in t.shape] if hasattr(t, "shape") else None for t in tm],
                "dtypes": [_dtype_name(t.dtype) if hasattr(t, "dtype") else None for t in tm]}
    return {"shape": [int(s) for s in tm.shape], "dtype": _dtype_name(tm.dtype)}


def _module_of_node(node):
    m = node.meta.get("ls_module")
    if isinstance(m, str):
        return m
    stack = node.meta.get("nn_module_stack")
    if stack:
        inner = list(stack.items())[-1]
        path = inner[1][0] if isinstance(inner[1], tuple) else inner[0]
        return _normalize_module_path(path)
    return ""


def _safe_arg(a, names, where):
    try:
        return _encode_arg(a, names, where)
    except ExportError:
        return repr(a)  # fxjson cannot express it (inline tensor, symbolic value): kept as text


def _target_name(target):
    try:
        return _op_name(target)
    except ExportError:
        return str(target)


def _fetch_attr(gm, target):
    obj = gm
    for part in str(target).split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _constant_entry(t, fqn, kind, weights):
    c = {"shape": [int(s) for s in t.shape], "dtype": _dtype_name(t.dtype), "fqn": fqn, "kind": kind}
    if weights or t.numel() <= SMALL_CONSTANT_ELEMENTS:
        c["data_b64"] = base64.b64encode(_tensor_bytes(t)).decode("ascii")
    return c


def graph_to_fxjson(gm, *, model="", program=None, weights=False):
    """The fxjson document (docs/FXJSON.md) of `gm` as it is now. Placeholders that an
    ExportedProgram's graph signature maps to parameters, buffers or lifted constants become
    get_attr constants, as the exporter writes them."""
    lifted, state = {}, {}
    if program is not None:
        sig = program.graph_signature
        for attr, kind in (("inputs_to_parameters", "parameter"), ("inputs_to_buffers", "buffer"),
                           ("inputs_to_lifted_tensor_constants", "constant")):
            for ph, fqn in (getattr(sig, attr, None) or {}).items():
                lifted[ph] = (fqn, kind)
        state.update(getattr(program, "state_dict", None) or {})
        state.update(getattr(program, "constants", None) or {})
    buffers = {id(b) for _, b in gm.named_buffers()}
    names = {n: n.name for n in gm.graph.nodes}
    nodes, constants, inputs, outputs = [], {}, [], []
    for node in gm.graph.nodes:
        where = f"node '{node.name}'"
        meta = _meta_of_node(node)
        op, target = node.op, None
        if node.op == "placeholder" and node.name in lifted:
            fqn, kind = lifted[node.name]
            op, target = "get_attr", fqn
            t = state.get(fqn)
            if isinstance(t, torch.Tensor) and fqn not in constants:
                constants[fqn] = _constant_entry(t, fqn, kind, weights)
        elif node.op == "placeholder":
            target = node.name
            inputs.append(node.name)
        elif node.op == "get_attr":
            target = str(node.target)
            t = _fetch_attr(gm, target)
            if isinstance(t, torch.Tensor) and target not in constants:
                kind = ("parameter" if isinstance(t, torch.nn.Parameter)
                        else "buffer" if id(t) in buffers else "constant")
                constants[target] = _constant_entry(t, target, kind, weights)
        elif node.op == "call_function":
            target = _target_name(node.target)
        elif node.op == "output":
            flat = torch.utils._pytree.tree_flatten(node.args[0])[0]
            outputs = [a.name for a in flat if isinstance(a, torch.fx.Node)]
            nodes.append({"name": node.name, "op": "output", "target": "output",
                          "args": [[_safe_arg(a, names, where) for a in flat]], "kwargs": {}, "meta": {}})
            continue
        else:  # call_module / call_method: kept as an op the engine does not know (opaque)
            op, target = "call_function", f"{node.op}.{node.target}"
        module = _module_of_node(node)
        if module and op in ("call_function", "get_attr"):
            meta["module"] = module
        nodes.append({"name": node.name, "op": op, "target": target,
                      "args": [_safe_arg(a, names, where) for a in node.args],
                      "kwargs": {k: _safe_arg(v, names, where) for k, v in node.kwargs.items()}, "meta": meta})
    return {"format": FORMAT, "version": FORMAT_VERSION, "model": model, "nodes": nodes, "constants": constants,
            "inputs": inputs, "outputs": outputs, "producer": {"tool": "lowerscope_record.py",
                                                               "torch": torch.__version__}}


# ------------------------------------------------------------------------------ the recorder

def pass_name(fn):
    """The name a pass is recorded under: its class name, or a function's __name__ (through
    functools.wraps wrappers such as torch's pass_result_wrapper)."""
    obj = _pass_object(fn)
    if isinstance(obj, functools.partial):
        obj = obj.func
    if inspect.isroutine(obj) or isinstance(obj, type):
        return obj.__name__
    return type(obj).__name__


def _pass_object(fn):
    seen = set()
    while hasattr(fn, "__wrapped__") and id(fn) not in seen:
        seen.add(id(fn))
        fn = fn.__wrapped__
    return fn


def _target_ops(obj):
    for attr in TARGET_OP_ATTRIBUTES:
        ops = getattr(obj, attr, None)
        if ops:
            try:
                return sorted(_target_name(o) for o in ops)
            except TypeError:
                continue
    return []


class Recorder:
    """Collects pass records and deduplicated fxjson snapshots; `write()` saves the bundle
    (temp file + rename). Not thread-safe: record one pipeline at a time."""

    def __init__(self, path, *, model=None, pipeline=None, weights=False):
        self.path = path
        self.model = model
        self.pipeline = pipeline
        self.weights = weights
        self.passes = []
        self.graphs = []
        self._graph_of_key = {}
        self._key = None          # structural key of the graph after the last recorded pass
        self._last_gm = None      # the GraphModule that key belongs to
        self._graph_index = -1
        self._program = None
        self._t0 = None
        self._managers = []
        self._in_pass = 0  # > 0 while a pass runs: managers it calls are part of that pass
        self.own_ns = 0  # CPU time (this thread's) the recorder itself spent: keys, snapshots, writing

    # -- graphs
    def _snapshot(self, gm, key):
        index = self._graph_of_key.get(key)
        if index is None:
            index = len(self.graphs)
            self.graphs.append(graph_to_fxjson(gm, model=self.model or "", program=self._program,
                                               weights=self.weights))
            self._graph_of_key[key] = index
        return index

    def _observe(self, module):
        """Called with each pass's input: the source graph on the first call; a graph changed
        between passes (outside any pass) is taken as it is."""
        program = _program_of(module)
        if program is not None:
            self._program = program
        gm = _graph_module_of(module)
        if gm is None:
            raise RecorderError(f"cannot record a pass over a {type(module).__name__}: expected a GraphModule "
                                "or an ExportedProgram")
        if self._t0 is None:
            self._t0 = time.perf_counter_ns()
            if self.model is None:
                self.model = type(gm).__name__
        if gm is not self._last_gm or self._key is None:
            key = structural_key(gm)
            if key != self._key:
                first = self._key is None
                self._graph_index = self._snapshot(gm, key)
                self._key = key
                if not first:  # changed between passes: say so rather than blame the next pass
                    self.passes.append({"index": len(self.passes), "name": OUTSIDE_PASSES, "status": "changed",
                                        "pass_manager": self._managers[-1] if self._managers else "list",
                                        "start_ns": time.perf_counter_ns() - self._t0, "wall_ns": 0,
                                        "graph": self._graph_index, "has_should_run": False,
                                        "message": "the graph changed between two recorded passes"})
            self._last_gm = gm
        return gm

    # -- one pass
    def run_pass(self, fn, module, call):
        """Runs `call()` (the pass applied to `module`) and records it. Returns its result;
        re-raises its exception after recording it as failed."""
        t_own = time.thread_time_ns()
        gm_in = self._observe(module)
        obj = _pass_object(fn)
        rec = {"index": len(self.passes), "name": pass_name(fn),
               "pass_manager": self._managers[-1] if self._managers else "list"}
        targets = _target_ops(obj)
        if targets:
            rec["targeted_ops"] = targets
        hook = None if _is_routine(obj) else getattr(obj, "should_run_pass", None)
        answer = {}
        restore = None
        rec["has_should_run"] = callable(hook)
        if callable(hook) and hasattr(obj, "__dict__"):

            def should_run_pass(*args, **kwargs):
                t = time.perf_counter_ns()
                result = hook(*args, **kwargs)
                answer["ns"] = answer.get("ns", 0) + time.perf_counter_ns() - t
                answer.setdefault("value", bool(result))
                return result

            restore = obj.__dict__.get("should_run_pass", _MISSING)
            obj.should_run_pass = should_run_pass  # what the pass's own __call__ calls
        start = time.perf_counter_ns()
        self.own_ns += time.thread_time_ns() - t_own
        cpu = time.process_time_ns()
        error = None
        result = None
        self._in_pass += 1
        try:
            result = call()
        except BaseException as e:  # noqa: B902  (recorded, then re-raised unchanged)
            error = e
        finally:
            wall = time.perf_counter_ns() - start
            cpu = time.process_time_ns() - cpu
            self._in_pass -= 1
            t_own = time.thread_time_ns()
            if restore is not None:
                if restore is _MISSING:
                    del obj.should_run_pass
                else:
                    obj.should_run_pass = restore
        rec.update({"start_ns": start - self._t0, "wall_ns": wall, "cpu_ns": cpu,
                    "should_run_ns": min(answer.get("ns", 0), wall)})
        if "value" in answer:
            rec["should_run"] = answer["value"]
        modified = getattr(result, "modified", None)
        rec["modified"] = bool(modified) if modified is not None else None
        if result is not None and _program_of(result) is not None:
            self._program = _program_of(result)
        gm_out = _graph_module_of(result) if result is not None else None
        if gm_out is None:
            gm_out = gm_in  # in-place pass (returned None) or failed: the input, maybe mutated
        key = structural_key(gm_out)
        changed = key != self._key
        if changed:
            self._graph_index = self._snapshot(gm_out, key)
            self._key = key
        self._last_gm = gm_out
        rec["graph"] = self._graph_index
        if error is not None:
            rec["status"] = "failed"
            rec["message"] = f"{type(error).__name__}: {error}"
        elif answer.get("value") is False and not changed:
            rec["status"] = "skipped"
            rec["reason"] = SKIP_REASON
        else:
            rec["status"] = "changed" if changed else "unchanged"
            if modified is not None and bool(modified) != changed:
                rec["message"] = (f"PassResult.modified is {bool(modified)} but the graph is structurally "
                                  f"{'changed' if changed else 'unchanged'}")
        self.passes.append(rec)
        self.own_ns += time.thread_time_ns() - t_own
        if error is not None:
            raise error
        return result

    # -- pass managers and lists
    def wrap(self, fn):
        """A callable that runs pass `fn` and records it (same __name__, so messages that name
        passes keep naming them)."""
        recorder = self

        def recorded(module, *args, **kwargs):
            return recorder.run_pass(fn, module, lambda: fn(module, *args, **kwargs))

        recorded.__name__ = pass_name(fn)
        recorded.__wrapped__ = fn
        return recorded

    def run_manager(self, pm, module, call):
        """Runs `call()` (pm applied to module) with every pass of pm recorded. Passes that are
        instances keep their identity and class (isinstance dispatch such as
        ExportedProgramPassManager's still sees them): their class is swapped for a recording
        subclass for the duration of the call; function passes are wrapped."""
        if self._in_pass:
            return call()
        if getattr(pm, "_validated", True) is False and hasattr(pm, "solve_constraints"):
            pm.solve_constraints()  # order the passes now: constraints compare the original objects
        had_own = "passes" in pm.__dict__
        original = pm.__dict__.get("passes")
        passes = list(pm.passes)
        swapped = []
        wrapped = []
        for fn in passes:
            if _is_routine(fn) or not hasattr(fn, "__dict__"):
                wrapped.append(self.wrap(fn))
                continue
            if fn.__class__.__dict__.get("_ls_recording_subclass") is None:
                try:
                    cls = fn.__class__
                    fn.__class__ = _recording_subclass(cls, self)
                    swapped.append((fn, cls))
                except TypeError:
                    wrapped.append(self.wrap(fn))
                    continue
            wrapped.append(fn)
        pm.passes = wrapped
        self._managers.append(type(pm).__name__)
        try:
            return call()
        finally:
            self._managers.pop()
            for fn, cls in swapped:
                fn.__class__ = cls
            if had_own:
                pm.passes = original
            else:
                del pm.passes

    def record_passes(self, passes, module):
        """Runs a plain list of passes in order, as torch's PassManager does (the result's
        graph_module feeds the next pass; None means in place). Returns the last module."""
        self._managers.append("list")
        try:
            for fn in passes:
                result = self.run_pass(fn, module, lambda: fn(module))
                if result is None:
                    continue  # in place
                if _program_of(result) is not None and _program_of(module) is not None:
                    module = _program_of(result)
                elif _graph_module_of(result) is not None:
                    module = _graph_module_of(result)
            return module
        finally:
            self._managers.pop()

    # -- output
    def bundle(self):
        if not self.graphs:
            raise RecorderError("nothing was recorded: no pass ran under the recorder")
        end = max((p["start_ns"] + p["wall_ns"] for p in self.passes), default=0)
        return {"format": BUNDLE_FORMAT, "version": BUNDLE_VERSION, "model": self.model or "",
                "pipeline": self.pipeline or (self._pipeline_name()), "total_ns": end,
                "producer": {"tool": "lowerscope_record.py", "torch": torch.__version__},
                "source": 0, "passes": self.passes, "graphs": self.graphs}

    def _pipeline_name(self):
        seen = []
        for p in self.passes:
            if p["pass_manager"] not in seen:
                seen.append(p["pass_manager"])
        return "python:" + "+".join(seen) if seen else "python"

    def write(self):
        t = time.thread_time_ns()
        doc = self.bundle()
        _write(doc, self.path)
        self.own_ns += time.thread_time_ns() - t
        return self.path


_MISSING = object()


def _is_routine(fn):
    return inspect.isroutine(fn) or isinstance(fn, (type, functools.partial))


def _recording_subclass(cls, recorder):
    def __call__(self, module, *args, **kwargs):
        call = lambda: super(sub, self).__call__(module, *args, **kwargs)  # noqa: E731
        if recorder._in_pass:  # reached through a wrapper that is being recorded already
            return call()
        return recorder.run_pass(self, module, call)

    sub = type(cls.__name__, (cls,), {"__call__": __call__, "_ls_recording_subclass": True,
                                      "__module__": cls.__module__, "__qualname__": cls.__qualname__})
    return sub


# ------------------------------------------------------------------------------ entry points

def record_pass_manager(pm, module, path, *, model=None, pipeline=None, weights=False):
    """Runs `pm(module)` -- a PassManager (torch's or a subclass) or a plain list of passes --
    recording every pass into the bundle at `path`. Returns what pm returns (for a list, the
    last PassResult's graph module). The bundle is written even when a pass raises (that pass
    recorded as failed); the exception then propagates."""
    rec = Recorder(path, model=model, pipeline=pipeline, weights=weights)
    try:
        if isinstance(pm, (list, tuple)):
            return rec.record_passes(pm, module)
        return rec.run_manager(pm, module, lambda: pm(module))
    finally:
        if rec.graphs:
            rec.write()


def _manager_classes():
    if _FxPassManager is None:
        return []
    out, todo = [], [_FxPassManager]
    while todo:
        cls = todo.pop()
        if cls not in out:
            out.append(cls)
            todo.extend(cls.__subclasses__())
    return out


@contextlib.contextmanager
def record(path, *, model=None, pipeline=None, weights=False):
    """Records every PassManager (torch.fx.passes.infra's PassManager and every subclass
    defined when the block starts) called inside the block into one bundle at `path`. The bundle
    is written when the block ends, also when it ends with an exception (the failing pass
    recorded as failed). Yields the Recorder."""
    rec = Recorder(path, model=model, pipeline=pipeline, weights=weights)
    patched = []
    for cls in _manager_classes():
        orig = cls.__dict__.get("__call__")
        if orig is None:
            continue

        def make(orig):
            def __call__(self, module, *args, **kwargs):
                if getattr(self, "_ls_recording", False):  # a subclass's __call__ calling super()
                    return orig(self, module, *args, **kwargs)
                self._ls_recording = True
                try:
                    return rec.run_manager(self, module, lambda: orig(self, module, *args, **kwargs))
                finally:
                    del self._ls_recording
            return __call__

        cls.__call__ = make(orig)
        patched.append((cls, orig))
    failed = False
    try:
        yield rec
    except BaseException:
        failed = True
        raise
    finally:
        for cls, orig in patched:
            cls.__call__ = orig
        if rec.graphs:
            rec.write()
        elif not failed:
            raise RecorderError(f"{path}: no PassManager ran inside record(...); nothing to write")
