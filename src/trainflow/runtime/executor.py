"""Execution plans: the ops needed for a (fetches, feeds, targets) signature, ordered
once and compiled to a Python function that calls the bound kernels in turn.

A plan's code is generated source, one statement (or a small block) per op, so a
step costs one pass of straight-line kernel calls. Errors are mapped back to the
op whose statement raised. Dead branches of `Switch` propagate as the `DEAD`
sentinel; only ops downstream of a Switch pay for the check.
"""
import bisect
import functools
import time

import numpy as np

from trainflow.framework import errors, graph_walk
from trainflow.framework.kernel_context import DEAD, MERGE_TYPES, SWITCH_TYPES
from trainflow.runtime.kernel_context import KernelContext
from trainflow.runtime.resources import Uninitialized, VariableSlot


def needed_ops(fetch_ops, fed, done=frozenset()):
    """The ops that must run to produce `fetch_ops`' results, in a valid run order.

    Args:
      fetch_ops: Operations whose outputs (or effects) are wanted.
      fed: set of Tensors whose values are supplied (their producers are not run
        for their sake).
      done: Operations already run (partial_run); they are skipped.

    Returns:
      the list of Operations, inputs before consumers, ties by creation order.
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
        elif op._type in ("Shape", "Size", "Rank") and op._inputs:
            value = _static_shape_value(op)
        elif (info is not None and info.kernel is not None and op._inputs
              and op._type not in _NEVER_FOLD and not info.stateful and not info.blocking
              and not info.kernel_wants_ctx and all(t in static for t in op._inputs)
              and not any(t._dtype._is_ref_dtype for t in op._outputs)):
            kwargs = {a: op._attrs[a] for a in info.kernel_attrs if a in op._attrs}
            args, i = [], 0
            for arg, n in zip(info.op_def.inputs, _input_groups(op)):
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


def bind_kernel(op, session, resources):
    """The op's kernel with its attrs (and context) bound, ready to call with inputs."""
    info = op._info
    if info is None or info.kernel is None:
        raise errors.UnimplementedError(
            None, op, f"No kernel registered for op type '{op.type}' (node {op.name})")
    kwargs = {a: op._attrs[a] for a in info.kernel_attrs if a in op._attrs}
    if info.kernel_wants_ctx:
        kwargs["ctx"] = KernelContext(op, session, resources)
    if not kwargs:
        return info.kernel
    return functools.partial(info.kernel, **kwargs)


def _input_groups(op):
    """Number of tensors per input argument; None marks a single (non-list) argument."""
    attrs = op._attrs
    return [arg.count(attrs) for arg in op._info.op_def.inputs]


def _deref(value):
    """The value of a fed ref tensor: a VariableSlot's buffer, or the fed array."""
    return value.get() if type(value) is VariableSlot else value


class Plan:
    """A compiled step for one (fetches, feeds, targets) signature of a session."""

    def __init__(self, session, fetches, targets, feeds, done=frozenset(), raw_refs=False):
        """
        Args:
          session: the owning session (supplies bound kernels and resources).
          fetches: list of Tensors whose values are returned, in order.
          targets: list of Operations run for their effects.
          feeds: list of Tensors whose values are passed to `run`, in order. A fed ref
            tensor may be fed a VariableSlot (partial runs do).
          done: ops already run in a partial run.
          raw_refs: return fetched ref tensors as their VariableSlots, not their values.
        """
        self._raw_refs = raw_refs
        self.fetches = list(fetches)
        self.feeds = list(feeds)
        fed = set(self.feeds)
        roots = [t._op for t in self.fetches if t not in fed] + list(targets)
        self.ops = needed_ops(roots, fed, done)
        self._session = session
        self._slots = {t: i for i, t in enumerate(self.feeds)}
        self._build(session)

    def _slot(self, t):
        s = self._slots.get(t)
        if s is None:
            s = self._slots[t] = len(self._slots)
        return s

    def _build(self, session):
        kernels = session._bound_kernels
        self._env = {"DEAD": DEAD, "_clock": time.perf_counter_ns, "_deref": _deref}
        for k, op in enumerate(self.ops):
            fn = kernels.get(op)
            if fn is None:
                fn = kernels.setdefault(op, bind_kernel(op, session, session._resources))
            self._env[f"k{k}"] = fn
        self._folded = fold_constants(self.ops, set(self.feeds))
        self._fn, self._code, self._starts = self._compile(traced=False)
        self._traced = None

    def _compile(self, traced):
        src, starts = self._generate(traced)
        name = "_plan_traced" if traced else "_plan"
        code = compile(src, f"<trainflow plan {id(self):#x}{' traced' if traced else ''}>",
                       "exec")
        exec(code, self._env)  # noqa: S102 - generated from the graph, not user text
        fn = self._env[name]
        return fn, fn.__code__, starts

    def _generate(self, traced):
        fed = set(self.feeds)
        lines = ["def _plan_traced(_f, _trace):" if traced else "def _plan(_f):"]
        if traced:
            lines.append("    _now = _clock")
        if self.feeds:
            lines.append("    " + ", ".join(f"v{i}" for i in range(len(self.feeds))) +
                         (", = _f" if len(self.feeds) == 1 else " = _f"))
        may_dead = set()
        markers = {}
        starts = []
        for k, op in enumerate(self.ops):
            args = self._arg_exprs(op, fed)
            # A fed output keeps its fed value even if the op runs for another output.
            outs = [f"_x{self._slot(t)}" if t in fed else f"v{self._slot(t)}"
                    for t in op._outputs]
            dead_inputs = [t for t in op._inputs if t._op in may_dead and t not in fed]
            dead_controls = [c for c in op._control_inputs if c in may_dead]
            is_switch = op._type in SWITCH_TYPES
            is_merge = op._type in MERGE_TYPES
            call = f"k{k}({args})"
            if op in self._folded:
                # Constants, and pure ops of constants (shape arithmetic), were computed
                # once when the plan was built: bind their (read-only) values.
                self._env[f"c{k}"] = self._folded[op]
                call = f"c{k}"
            if traced:
                lines.append("    _t0 = _now()")
            starts.append(len(lines) + 1)
            if dead_inputs or dead_controls or is_switch:
                may_dead.add(op)
                marker = markers[op] = f"m{k}"
                conds = [] if is_merge else [f"v{self._slots[t]} is DEAD" for t in dead_inputs]
                conds += [f"{markers[c]} is DEAD" for c in dead_controls]
                indent = "    "
                if conds:
                    lines.append(f"    if {' or '.join(conds)}:")
                    lines.append("        " + ", ".join(outs + [marker]) + " = " +
                                 ", ".join(["DEAD"] * (len(outs) + 1)))
                    lines.append("    else:")
                    indent = "        "
                lines.append(indent + self._assign(outs, call))
                if is_merge:
                    lines.append(indent + f"{marker} = {outs[0]}")
                else:
                    lines.append(indent + f"{marker} = True")
            else:
                lines.append("    " + self._assign(outs, call))
            if traced:
                lines.append(f"    _trace({k}, _t0, _now())")
        self.may_dead = bool(may_dead)
        exprs = []
        self._fetch_is_ref = []
        for t in self.fetches:
            is_ref = t._dtype._is_ref_dtype and t not in fed and not self._raw_refs
            exprs.append(f"v{self._slot(t)}.get()" if is_ref else f"v{self._slot(t)}")
            self._fetch_is_ref.append(is_ref)
        lines.append(f"    return [{', '.join(exprs)}]")
        if not traced:
            self.source = "\n".join(lines)
        return "\n".join(lines), starts

    def _arg_exprs(self, op, fed):
        info_inputs = op._info.op_def.inputs
        groups = _input_groups(op)
        i = 0
        out = []
        for arg, n in zip(info_inputs, groups):
            count = 1 if n is None else n
            items = []
            for t in op._inputs[i:i + count]:
                e = f"v{self._slot(t)}"
                if t._dtype._is_ref_dtype and not arg.is_ref:
                    e = f"_deref({e})" if t in fed else e + ".get()"
                items.append(e)
            i += count
            out.append(items[0] if n is None else "[" + ", ".join(items) + "]")
        return ", ".join(out)

    @staticmethod
    def _assign(outs, call):
        if not outs:
            return call
        if len(outs) == 1:
            return f"{outs[0]} = {call}"
        return f"{', '.join(outs)}, = {call}"

    # -- running ------------------------------------------------------------------
    def run(self, feed_values, trace=None):
        """Runs the step. Returns the fetched values (raw kernel outputs).

        Args:
          feed_values: the values of `feeds`, in order.
          trace: optional callback ``trace(op_index, start_ns, end_ns)`` per op.

        Raises:
          OpError: naming the failing node.
        """
        try:
            # Kernels follow TF: inf/nan results are values, not warnings.
            with np.errstate(all="ignore"):
                if trace is not None:
                    if self._traced is None:
                        self._traced = self._compile(traced=True)
                    return self._traced[0](feed_values, trace)
                return self._fn(feed_values)
        except errors.OpError as e:
            if e.op is not None:
                raise
            raise self._translate(e) from None
        except Uninitialized as e:
            raise self._translate(e) from None
        except (ValueError, TypeError, IndexError, ArithmeticError, KeyError, AttributeError,
                MemoryError, RuntimeError, AssertionError, OSError, np.linalg.LinAlgError) as e:
            raise self._translate(e) from e

    def _failing_op(self, exc):
        maps = {self._code: self._starts}
        if self._traced is not None:
            maps[self._traced[1]] = self._traced[2]
        tb = exc.__traceback__
        found = None
        while tb is not None:
            starts = maps.get(tb.tb_frame.f_code)
            if starts is not None:
                found = (starts, tb.tb_lineno)
            tb = tb.tb_next
        if found is None:
            return None
        idx = bisect.bisect_right(found[0], found[1]) - 1
        return self.ops[idx] if 0 <= idx < len(self.ops) else None

    def _translate(self, exc):
        op = self._failing_op(exc)
        where = ""
        if op is not None:
            where = f"\n\t [[node {op.name} ({op.type}) defined at {op.creation_site} ]]"
        if isinstance(exc, Uninitialized):
            return errors.FailedPreconditionError(
                None, op, f"Attempting to use uninitialized value {exc.name}{where}")
        if isinstance(exc, errors.OpError):
            if type(exc) is errors.OpError:
                return errors.OpError(None, op, f"{exc.message}{where}", exc.error_code)
            return type(exc)(None, op, f"{exc.message}{where}")
        cls = errors.ResourceExhaustedError if isinstance(exc, MemoryError) else \
            errors.InvalidArgumentError
        kind = "" if op is None else f"{op.type}: "
        return cls(None, op, f"{kind}{type(exc).__name__}: {exc}{where}")
