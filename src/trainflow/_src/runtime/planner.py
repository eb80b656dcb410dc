"""The planner: which ops a (fetches, feeds, targets) signature runs and how, before a
backend turns them into code.

  prune      `needed_ops`: the ops the fetches and targets need, given the feeds;
             `skip_unread`: less the pure ones only control edges ask for
  order      ... in a valid run order: as ops become ready (as TF's executor), ties by creation
  fold       `fold_constants`: values computable once, when the plan is built
  segment    `host_program`: which ops go to a compiling backend (`backend_for`: the
             registry's kernels; what the backend can take in the plan), in what order
             (`group_order`), cut by `partition` into maximal runs of consecutive ops
             with one key; the backend lowers each of its segments into one op of the
             host program

Nothing here calls a kernel for a step; backends (runtime/backends/) do.
"""
import collections

import numpy as np

from trainflow._src.framework import dtypes, errors, graph_walk, registry
from trainflow._src.framework.constant_op import dtype_string
from trainflow._src.framework.op_signature import input_groups

NUMPY = registry.NUMPY
Segment = collections.namedtuple("Segment", ["key", "ops"])
Segment.__doc__ = "A maximal run of consecutive plan ops that share one partition key."


def needed_ops(fetch_ops, fed, done=frozenset()):
    """The ops that must run to produce `fetch_ops`' results, in a valid run order.

    Args:
      fetch_ops: Operations whose outputs (or effects) are wanted.
      fed: set of Tensors whose values are supplied (their producers are not run
        for their sake).
      done: Operations already run (partial_run); they are skipped.

    Returns:
      the list of Operations, inputs before consumers, in the order they become ready,
      ties by creation.
    """
    def next_ops(op):
        out = [t._op for t in op._inputs if t not in fed and t._op not in done]
        out.extend(c for c in op._control_inputs
                   if c not in done and not _all_outputs_fed(c, fed))
        return out

    def dependencies(op):
        deps = [t._op for t in op._inputs if t not in fed]
        deps.extend(op._control_inputs)
        return deps

    needed = graph_walk.reachable([op for op in fetch_ops if op not in done], next_ops)
    order = graph_walk.topological_order(needed, dependencies)
    if len(order) != len(needed):
        cyclic = sorted(op.name for op in needed.difference(order))
        raise errors.InvalidArgumentError(
            None, None, f"Graph has a cycle through the ops: {', '.join(cyclic[:10])}")
    return order


# Ops kept even when nothing reads their outputs (as TensorFlow's dependency optimizer
# keeps them): checks run for their errors, and control flow for its deadness.
_KEEP_UNREAD = frozenset(["Assert", "CheckNumerics", "ControlTrigger", "Switch", "RefSwitch",
                          "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
                          "NextIteration", "RefNextIteration", "LoopCond"])
_CONTROL_FLOW = _KEEP_UNREAD - {"Assert", "CheckNumerics", "ControlTrigger"}


def _pure(op):
    info = op._info
    return (info is not None and op._outputs and op._type not in _KEEP_UNREAD
            and not info.stateful and not info.blocking and not info.kernel_wants_ctx
            and not any(t._dtype._is_ref_dtype for t in op._inputs)
            and not any(t._dtype._is_ref_dtype for t in op._outputs))


def skip_unread(ops, roots):
    """`ops` less the pure ones that run only to satisfy control dependencies.

    TensorFlow's dependency optimizer turns a side-effect-free op whose outputs nothing
    reads (it is needed only through control edges, e.g. the gradient of a fed input
    that `control_flow_ops.tuple` groups with a variable's gradient) into a NoOp; so
    these ops are left out of the plan. Kept: `roots` (fetched and target ops), stateful
    and blocking ops, ops touching refs or resources, Assert/CheckNumerics, and every op
    of a plan holding control flow (whose deadness travels along control edges).
    """
    if any(op._type in _CONTROL_FLOW for op in ops):
        return ops
    roots = set(roots)
    read = set()
    kept = []
    for op in reversed(ops):
        if op not in roots and _pure(op) and not any(t in read for t in op._outputs):
            continue
        kept.append(op)
        read.update(op._inputs)
    if len(kept) == len(ops):
        return ops
    kept.reverse()
    return kept


_NEVER_FOLD = frozenset(["Placeholder", "PlaceholderWithDefault", "Switch", "RefSwitch",
                         "Merge", "RefMerge", "Identity"]) | frozenset(["VariableV2"])
_FOLD_MAX_ELEMENTS = 1 << 16


def _static_shape_value(op):
    """The value of Shape/Size/Rank of a tensor whose static shape is fully known."""
    shape = op._inputs[0]._shape
    dims = shape._dims
    out_dtype = op._outputs[0]._dtype.base_dtype.as_numpy_dtype
    if op._type == "Rank" and dims is not None:
        return np.asarray(len(dims), dtype=out_dtype)
    if dims is None or any(d is None for d in dims):
        return None
    if op._type == "Shape":
        return np.asarray(dims, dtype=out_dtype)
    if op._type == "Size":
        return np.asarray(int(np.prod(dims, dtype=np.int64)), dtype=out_dtype)
    return None


def _check_const(op, value):
    """TF's Const kernel refuses a value whose dtype is not its `dtype` attr (a Const
    made by create_op from mismatched AttrValue protos); checked for numbers and bools."""
    got = getattr(value, "dtype", None)
    want = op._attrs.get("dtype")
    if got is None or want is None or got.kind not in "biufc":
        return
    want_np = np.dtype(want.base_dtype.as_numpy_dtype)
    if want_np.kind in "biufc" and want_np != got:
        raise errors.InvalidArgumentError(
            None, op, f"Type mismatch between value ({dtype_string(dtypes.as_dtype(got))}) "
                      f"and dtype ({dtype_string(want)})\n\t [[node {op.name} ({op.type}) "
                      f"defined at {op.creation_site} ]]")


def fold_constants(ops, fed):
    """Values of the ops that can be computed once, when the plan is built: constants,
    Shape/Size/Rank of statically known shapes, and pure kernels all of whose inputs are
    such values (TF's constant folding, kept to small results).

    Returns:
      {op: value (one output) or tuple of values}; every array is read-only.
    """
    folded = {}
    static = {}
    for op in ops:
        if any(t in fed for t in op._outputs):
            continue
        info = op._info
        value = None
        if op._type == "Const" and "value" in op._attrs:
            value = op._attrs["value"]
            _check_const(op, value)
        elif op._type in ("Shape", "Size", "Rank") and op._inputs:
            value = _static_shape_value(op)
        elif (info is not None and info.kernel is not None and op._inputs
              and op._type not in _NEVER_FOLD and not info.stateful and not info.blocking
              and not info.kernel_wants_ctx and all(t in static for t in op._inputs)
              and not any(t._dtype._is_ref_dtype for t in op._outputs)):
            kwargs = {a: op._attrs[a] for a in info.kernel_attrs if a in op._attrs}
            args, i = [], 0
            for n in input_groups(op):
                if n is None:
                    args.append(static[op._inputs[i]])
                    i += 1
                else:
                    args.append([static[t] for t in op._inputs[i:i + n]])
                    i += n
            try:
                with np.errstate(all="ignore"):
                    value = info.kernel(*args, **kwargs)
            except Exception:  # noqa: BLE001 - left to fail (and be reported) at run time
                value = None
        if value is None:
            continue
        outs = value if len(op._outputs) != 1 else (value,)
        if not isinstance(outs, (tuple, list)) or len(outs) != len(op._outputs):
            continue
        arrays = []
        for v in outs:
            if not isinstance(v, (np.ndarray, np.generic)) or np.size(v) > _FOLD_MAX_ELEMENTS:
                break
            a = np.array(v) if isinstance(v, np.generic) or v.flags.writeable else v
            a.flags.writeable = False
            arrays.append(a)
        else:
            for t, a in zip(op._outputs, arrays):
                static[t] = a
            folded[op] = arrays[0] if len(arrays) == 1 else tuple(arrays)
            continue
        if op._type == "Const":
            folded[op] = op._attrs["value"]
            static[op._outputs[0]] = op._attrs["value"]
    return folded


def _all_outputs_fed(op, fed):
    """A control input whose every output is fed counts as having run."""
    return bool(op._outputs) and all(t in fed for t in op._outputs)


def partition(ops, key_fn):
    """Cuts ordered `ops` into maximal segments of consecutive ops with equal
    `key_fn(op)` (a backend name, a device), keeping their order.

    Returns:
      a list of Segment(key, ops); empty for no ops.
    """
    segments = []
    for op in ops:
        key = key_fn(op)
        if segments and segments[-1].key == key:
            segments[-1].ops.append(op)
        else:
            segments.append(Segment(key, [op]))
    return segments


def backend_for(op, preference=(registry.NUMPY,)):
    """The first backend of `preference` that has a kernel for `op`'s type; the NumPy
    backend (the host) for ops no backend has (it reports the missing kernel)."""
    for backend in preference:
        if registry.kernel(op._type, backend) is not None:
            return backend
    return registry.NUMPY


def group_order(ops, fed, compiled, deps_of=None):
    """Reorders `ops` (a valid run order) into as few alternating runs of compiled ops
    (`compiled(op)` true) and host ops as a greedy pass finds: host ops first, then each
    run takes every op of its kind that becomes ready. Blocking ops (a Recv, a queue's
    dequeue) run only when nothing else is ready, so that what another party waits for
    (a Send, an enqueue) is not held back behind them. Ties keep the given order.
    `deps_of(op)`, when given, names the ops of `ops` that `op` waits on (the XLA
    backend's gated conditional ops wait on other ops than their inputs' producers).

    Returns:
      a new list: a valid run order of the same ops.
    """
    import heapq
    index = {op: k for k, op in enumerate(ops)}
    users = collections.defaultdict(list)
    waiting = {}
    for op in ops:
        if deps_of is not None:
            deps = deps_of(op)
        else:
            deps = {t._op for t in op._inputs if t not in fed and t._op in index}
            deps.update(c for c in op._control_inputs if c in index)
        waiting[op] = len(deps)
        for d in deps:
            users[d].append(op)
    host, comp, late = [], [], []

    def ready(op):
        if compiled(op):
            heapq.heappush(comp, index[op])
        elif op._info is not None and op._info.blocking:
            heapq.heappush(late, index[op])
        else:
            heapq.heappush(host, index[op])
    for op in ops:
        if not waiting[op]:
            ready(op)
    out = []
    current = host if host else comp
    while host or comp or late:
        if not current:
            current = comp if current is host else host
            if not current:
                current = late
        k = heapq.heappop(current)
        op = ops[k]
        out.append(op)
        if current is late:
            current = host
        for u in users[op]:
            waiting[u] -= 1
            if not waiting[u]:
                ready(u)
    return out


def host_program(ops, fetches, fed, folded, backend, kernel_for, marked_only=False):
    """The host program of a plan that compiles with `backend` (the XLA backend): its
    ops, segments of `backend` fused, and their kernels.

    An op goes to `backend` when the registry has a kernel for its type there
    (`backend_for`) and the backend can take it in this plan (`backend.lowerable_ops`:
    dtypes, fed outputs, conditionals ...). The ops are ordered into as few runs as
    `group_order` finds and cut by `partition`; `backend.lower_segment` turns each run
    of its ops into one stand-in op with one fused kernel. The other ops keep their
    NumPy kernels.

    Args:
      ops: the plan's ordered ops.
      fetches: the plan's fetched Tensors; fed: the set of its fed Tensors.
      folded: `fold_constants`' values.
      backend: the XLA backend module (runtime/backends/xla_backend.py).
      kernel_for: fn(op) -> its bound NumPy kernel.
      marked_only: compile only the ops `jit_scope` marked (`_XlaCompile` true), one
        segment per `_XlaScope` (the session's switch is off); otherwise every op the
        backend can take except those marked `_XlaCompile` false.

    Returns:
      (program ops, their kernels). Folded ops that only segments read are left out
      (the segments bind their values).
    """
    name = backend.NAME
    chosen = {op for op in ops if backend_for(op, (name,)) == name}
    frames = None if marked_only else backend.cond_frames(ops, fetches, fed, folded)
    lowerable = backend.lowerable_ops(ops, chosen, fed, folded, frames is not None)
    if frames is not None:
        ops, lowerable, kernel_for = frames.settle(ops, lowerable, kernel_for)
    backend.add_folded(ops, folded, lowerable, frames)
    if marked_only:
        lowerable = {op for op in lowerable if op._attrs.get("_XlaCompile") is True}

        def key(op):
            return (name, op._attrs.get("_XlaScope")) if op in lowerable else NUMPY
    else:
        lowerable = {op for op in lowerable if op._attrs.get("_XlaCompile") is not False}

        def key(op):
            return name if op in lowerable else NUMPY
    ordered = group_order(ops, fed, lowerable.__contains__, frames.deps if frames else None)
    out_ops, out_kernels = [], []
    preds = frames.pred_roots(ordered) if frames else []  # outputs for later segments
    for seg in partition(ordered, key):
        if seg.key == NUMPY or not any(op._outputs or op._inputs for op in seg.ops):
            out_ops.extend(seg.ops)
            out_kernels.extend(kernel_for(op) for op in seg.ops)
            continue
        sop, kernel = backend.lower_segment(len(out_ops), seg.ops, ordered,
                                            list(fetches) + preds, folded, kernel_for, frames)
        out_ops.append(sop)
        out_kernels.append(kernel)
    needed = set(fetches)
    for op in out_ops:
        needed.update(op._inputs)
        needed.update(op._control_inputs)
    keep = [k for k, op in enumerate(out_ops)
            if op not in folded or op in needed or any(t in needed for t in op._outputs)]
    return [out_ops[k] for k in keep], [out_kernels[k] for k in keep]
