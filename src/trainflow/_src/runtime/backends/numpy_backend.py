"""The NumPy backend: turns an ordered segment of ops into one generated Python
function, straight-line code with one statement (or a small block) per op calling
the op's bound NumPy kernel, and maps a failure back to the op that raised and the
line of user code that created it.

Dead branches of `Switch` propagate as the `DEAD` sentinel; only ops downstream of a
Switch pay for the check. Constants folded by the planner are bound as values.
"""
import bisect
import functools
import re
import time

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.kernel_context import DEAD, MERGE_TYPES, SWITCH_TYPES
from trainflow._src.runtime.kernel_context import KernelContext
from trainflow._src.framework.op_signature import input_groups
from trainflow._src.runtime.resources import Uninitialized, VariableSlot

NAME = "numpy"


def bind_kernel(op, context):
    """The op's kernel with its attrs (and a KernelContext made from the ExecutionContext
    `context`) bound, ready to call with inputs."""
    info = op._info
    if info is None or info.kernel is None:
        raise errors.UnimplementedError(
            None, op, f"No kernel registered for op type '{op.type}' (node {op.name})")
    kwargs = {a: op._attrs[a] for a in info.kernel_attrs if a in op._attrs}
    if info.kernel_wants_ctx:
        kwargs["ctx"] = KernelContext(op, context)
    if not kwargs:
        return info.kernel
    return functools.partial(info.kernel, **kwargs)


def _deref(value):
    """The value of a fed ref tensor: a VariableSlot's buffer, or the fed array."""
    return value.get() if type(value) is VariableSlot else value


class Program:
    """One segment of a plan compiled to a Python function.

    Attributes:
      source: the generated source of the function.
      may_dead: whether some value may be DEAD (the segment holds a Switch).
      fetch_is_ref: per fetch, whether its value is read from a variable's buffer.
    """

    def __init__(self, ops, fetches, feeds, folded, kernels, raw_refs=False):
        """
        Args:
          ops: the ordered ops of the segment.
          fetches: the Tensors whose values the function returns, in order.
          feeds: the Tensors whose values it takes, in order (a fed ref tensor may be
            fed a VariableSlot).
          folded: {op: value(s)} computed by the planner; bound instead of called.
          kernels: one bound kernel per op (see `bind_kernel`).
          raw_refs: return fetched ref tensors as their VariableSlots, not values.
        """
        self.ops = ops
        self.fetches = fetches
        self.feeds = feeds
        self._raw_refs = raw_refs
        self._folded = folded
        self._slots = {t: i for i, t in enumerate(feeds)}
        self._env = {"DEAD": DEAD, "_clock": time.perf_counter_ns, "_deref": _deref}
        for k, fn in enumerate(kernels):
            self._env[f"k{k}"] = fn
        self._fn, self._code, self._starts = self._compile(traced=False)
        self._traced = None
        # Kernels marked `handles_float_errors` (fused XLA segments) keep NumPy's float
        # error state to themselves: a program made only of those runs without one.
        self._bare = all(getattr(fn, "handles_float_errors", False)
                         for op, fn in zip(ops, kernels) if op not in folded)

    def _slot(self, t):
        s = self._slots.get(t)
        if s is None:
            s = self._slots[t] = len(self._slots)
        return s

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
                    if op._type == "_Send":
                        # TF's Send of a dead input sends the dead marker: the peer's Recv
                        # gets it instead of waiting for a tensor that never comes.
                        lines.append(f"        k{k}(DEAD)")
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
        self.fetch_is_ref = []
        for t in self.fetches:
            is_ref = t._dtype._is_ref_dtype and t not in fed and not self._raw_refs
            exprs.append(f"v{self._slot(t)}.get()" if is_ref else f"v{self._slot(t)}")
            self.fetch_is_ref.append(is_ref)
        lines.append(f"    return [{', '.join(exprs)}]")
        if not traced:
            self.source = "\n".join(lines)
        return "\n".join(lines), starts

    def _arg_exprs(self, op, fed):
        info_inputs = op._info.op_def.inputs
        groups = input_groups(op)
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
            if self._bare and trace is None:
                return self._fn(feed_values)
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
        op = self.ops[idx] if 0 <= idx < len(self.ops) else None
        return getattr(op, "source_op", op)  # a stand-in (xla_cond.GatedOp) names its op

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
        shapes = _BROADCAST_ERROR.match(str(exc)) if isinstance(exc, ValueError) else None
        if shapes:  # NumPy's broadcast failure of a binary op, in TF's words
            a, b = (_dims_text(t) for t in shapes.groups())
            return cls(None, op, f"Incompatible shapes: {a} vs. {b}{where}")
        kind = "" if op is None else f"{op.type}: "
        return cls(None, op, f"{kind}{type(exc).__name__}: {exc}{where}")


_BROADCAST_ERROR = re.compile(r"operands could not be broadcast together with shapes "
                              r"\(([0-9, ]*)\) \(([0-9, ]*)\)\s*$")


def _dims_text(text):
    """NumPy's "(3, 2)" shape text as TF's "[3,2]"."""
    return "[" + ",".join(d.strip() for d in text.split(",") if d.strip()) + "]"
