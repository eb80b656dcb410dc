"""TF1 conditionals (the Switch/Merge frames `tf.cond` builds, and their gradients) inside
XLA segments.

Whether an op of a TF1 cond runs is a conjunction of literals "predicate P is true" /
"P is false", one per Switch it lies behind: its *condition*, found when the plan is
built. A literal's predicate is the tensor behind the Switch's `pred` input, traced back
through Identity (a cond's `pred_id`), a Switch's data and an unfed
PlaceholderWithDefault, so the Switches of a cond, of its nested conds and of its
gradient (tf.gradients builds more Switch/Merge frames on the same `pred_id`) share
their literals. A Merge's condition is the disjunction of its inputs' conditions, which
a cond reduces to its own frame's (C and P) or (C and not P) = C.

Ops joined by values that may be dead form a *component*. A component whose every op has
a lowering, is a constant folded when the plan was built, or is a host op whose outputs
have fully known shapes, is lowered:

  - its lowered ops join the segments, traced under their conditions
    (xla_cond_segment.py: a branch runs under `lax.cond`, or, when small, is computed
    and selected; a Merge selects the live input's value; a run-time check fires, and
    a variable written in a branch changes, only when the branch is taken);
  - its host ops (a random op of a dropout branch, a Print) stay on the host behind a
    gate that evaluates their condition from the predicates' values, so they run, and
    advance their state, only when taken; their dead outputs enter a segment as zeros;
  - its folded constants are bound where they are read.

Every op downstream of a component's Merges is unconditional again and lowers as usual.
Other components (an op without a lowering and with an unknown output shape in a
branch, a RefMerge, a fetched branch value) stay wholly on the host, where dead
branches are skipped as before; so do plans holding v1 while-loop frames
(Enter/Exit/NextIteration) or a Merge whose inputs' conditions do not reduce (a
hand-built Switch/Merge), where every op downstream of a Switch stays on the host.

When a segment runs on NumPy (a signature that cannot be traced, or the re-run after a
failed check, which raises the NumPy path's own error), its conditional ops run behind
the same gates, so untaken branches are skipped there too.
"""
import numpy as np

from trainflow._src.framework.kernel_context import DEAD
from trainflow._src.runtime.backends import xla_backend

_SWITCH = frozenset(["Switch", "RefSwitch"])
_MERGE = frozenset(["Merge", "RefMerge"])
_LOOP = frozenset(["Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                   "RefNextIteration", "LoopCond"])
_NONE = frozenset()


class NotLowerable(Exception):
    """A conditional op that cannot be traced: the segment runs on NumPy."""


def _reduce_or(conds):
    """The conjunction equal to the disjunction of the conjunctions `conds`, or None."""
    conds = {c for c in conds if not any((p, 1 - b) in c for p, b in c)}  # never live
    changed = True
    while changed and len(conds) > 1:
        changed = False
        items = list(conds)
        for i, a in enumerate(items):
            for b in items[i + 1:]:
                if a <= b or b <= a:  # the stronger one implies the weaker
                    conds.discard(b if a <= b else a)
                    changed = True
                    break
                diff = a ^ b
                if len(diff) == 2 and len({p for p, _ in diff}) == 1:
                    conds -= {a, b}
                    conds.add(a & b)
                    changed = True
                    break
            if changed:
                break
    if len(conds) == 1:
        return next(iter(conds))
    return None


class Frames:
    """The conditions of a plan's ops and what lowers of its TF1 conds."""

    @classmethod
    def build(cls, ops, fetches, fed, folded):
        """The Frames of a plan, or None when it holds no Switch, holds v1 loop frames,
        or has a Merge whose condition does not reduce (all stay on the host)."""
        if not any(op._type in _SWITCH for op in ops) or any(op._type in _LOOP for op in ops):
            return None
        frames = cls(ops, fetches, fed, folded)
        return frames if frames.ok else None

    def __init__(self, ops, fetches, fed, folded):
        self.fed, self.folded = fed, folded
        self.fetches = list(fetches)
        self.cond = {}
        self.ok = True
        for op in ops:
            if op._type in _MERGE:
                c = _reduce_or([self.tcond(t) for t in op._inputs])
                if c is None:
                    self.ok = False
                    return
                c = set(c)
            else:
                c = set()
                for t in op._inputs:
                    c |= self.tcond(t)
            for dep in op._control_inputs:
                c |= self.cond.get(dep, _NONE)
            self.cond[op] = frozenset(c)
        self.proxies = {}
        self.bound = set()
        self.host = set()

    def root(self, t):
        """The tensor whose value a predicate `t` forwards."""
        seen = set()
        while t not in self.fed and t not in seen:
            seen.add(t)
            op = t._op
            if op in self.folded:
                break
            if op._type == "Identity" or op._type in _SWITCH or \
                    op._type == "PlaceholderWithDefault":
                t = op._inputs[0]
            else:
                break
        return t

    def tcond(self, t):
        """The condition under which tensor `t` is live."""
        if t in self.fed:
            return _NONE
        op = t._op
        c = self.cond.get(op, _NONE)
        if op._type in _SWITCH:
            c = c | {(self.root(op._inputs[1]), t._value_index)}
        return c

    def op_cond(self, op):
        return self.cond.get(op, _NONE)

    # -- what lowers ----------------------------------------------------------------------
    def _conditional(self, op):
        return bool(self.op_cond(op)) or op._type in _SWITCH or (
            op._type in _MERGE and any(self.tcond(t) for t in op._inputs))

    def _components(self, ops):
        parent = {}

        def find(x):
            while parent[x] is not x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x
        members = [op for op in ops if self._conditional(op)]
        for op in members:
            parent[op] = op
        for op in members:
            deps = [t._op for t in op._inputs if self.tcond(t)]
            deps += [c for c in op._control_inputs if self.op_cond(c)]
            for d in deps:
                if d in parent:
                    a, b = find(op), find(d)
                    if a is not b:
                        parent[a] = b
        comps = {}
        for op in members:
            comps.setdefault(find(op), []).append(op)
        return list(comps.values())

    def _lowers(self, comp, lowerable, consumers):
        fetched = set(self.fetches)
        for op in comp:
            if any(self.tcond(t) and t in fetched for t in op._outputs):
                return False
            if op in self.folded:
                continue
            if op._type in _SWITCH:
                # Its data (a ref or a number) enters a segment; a string cannot.
                if op._inputs[0]._dtype.base_dtype.name in xla_backend._HOST_DTYPES or \
                        op._attrs.get("_XlaCompile") is False:
                    return False
                continue
            if op._type in _MERGE:
                if op._type != "Merge" or \
                        op._inputs[0]._dtype.base_dtype.name in xla_backend._HOST_DTYPES or \
                        op._attrs.get("_XlaCompile") is False:
                    return False
                continue
            if op in lowerable:
                continue
            # A host op behind a gate: its outputs that segments read enter them as
            # zeros when dead, so their shapes must be known.
            info = op._info
            if info is None or any(t._dtype._is_ref_dtype for t in op._outputs):
                return False
            for t in op._outputs:
                if any(c in lowerable or c._type in _SWITCH or c._type in _MERGE
                       for c in consumers.get(t, ())) and not t._shape.is_fully_defined():
                    return False
        return True

    def settle(self, ops, lowerable, kernels_for):
        """Decides which components lower.

        Returns:
          (ops for ordering: gated host ops stand in for theirs and the folded constants
          of lowered components are left out, the lowerable set, kernels_for with the
          gates' kernels).
        """
        consumers = {}
        for op in ops:
            for t in op._inputs:
                consumers.setdefault(t, []).append(op)
        # Ops marked `compile_ops=False` run on the host (behind gates in a branch).
        lowerable = {op for op in lowerable if op._attrs.get("_XlaCompile") is not False}
        for comp in self._components(ops):
            if not self._lowers(comp, lowerable, consumers):
                self.host.update(comp)
                lowerable.difference_update(comp)
                continue
            for op in comp:
                if op in self.folded:
                    self.bound.add(op)
                elif op._type in _SWITCH or op._type in _MERGE:
                    lowerable.add(op)
                elif op not in lowerable:
                    self.proxies[op] = GatedOp(op, self)
        out = [self.proxies.get(op, op) for op in ops if op not in self.bound]
        self._entries = {e.op if isinstance(e, GatedOp) else e: e for e in out}

        def kernels(op):
            if isinstance(op, GatedOp):
                return op.gate(kernels_for(op.op))
            return kernels_for(op)
        return out, lowerable, kernels

    @property
    def all_lowered(self):
        return not self.host

    def deps(self, entry):
        """The entries of the settled op list that `entry` waits on."""
        index = self._entries
        deps = {index.get(t._op) for t in entry._inputs if t not in self.fed}
        deps.update(index.get(c) for c in entry._control_inputs)
        deps.discard(None)
        return deps

    def pred_roots(self, ops):
        """The predicates that the conditions of `ops` read (not known at plan time)."""
        out = {}
        for op in ops:
            lits = set(self.op_cond(op))
            if op._type in _MERGE:
                for t in op._inputs:
                    lits |= self.tcond(t)
            for p, _ in lits:
                if p._op not in self.folded:
                    out[p] = None
        return list(out)

    def segment_kernel(self, index, seg, kernels, producers):
        """(the SegmentOp `seg` with its predicates added to its inputs, its kernel)."""
        produced = {t for op in seg.ops for t in op._outputs}
        extra = [p for p in self.pred_roots(seg.ops)
                 if p not in produced and p not in seg._inputs]
        if extra:
            seg = xla_backend.SegmentOp(index, seg.ops, seg._inputs + extra, seg._outputs)
        # lazy: xla_cond_segment builds on this module's GatedOp and NotLowerable
        from trainflow._src.runtime.backends.xla_cond_segment import CondSegmentKernel
        return seg, CondSegmentKernel(seg, self.folded, kernels, producers, self)

    def truth(self, value, branch):
        """Whether a literal holds for a predicate's host value (DEAD: never)."""
        if value is DEAD:
            return False
        return bool(np.asarray(value).reshape(())) == bool(branch)


class _GateInfo:
    """The OpInfo of a gated op: the original's, with one argument per input."""

    def __init__(self, info, args):
        self._info = info
        self.op_def = type("GatedOpDef", (), {"inputs": args})()

    def __getattr__(self, name):
        return getattr(self._info, name)


class GatedOp:
    """Stands for a conditional op in a host program: its inputs less the folded ones,
    plus its predicates; its kernel (`gate`) runs the op's only when its condition holds
    and returns DEAD outputs otherwise."""

    def __init__(self, op, frames, value=None):
        """`value`: the folded value of a constant that runs in no other way (its
        inputs are then not read)."""
        self.op = self.source_op = op
        self.frames = frames
        folded = frames.folded
        lits = set(frames.op_cond(op))
        self.merge_conds = None
        if op._type in _MERGE:
            self.merge_conds = [tuple(frames.tcond(t)) for t in op._inputs]
            for c in self.merge_conds:
                lits |= set(c)
        self.static, self.preds = {}, []
        for p, _ in lits:
            if p._op in folded:
                v = folded[p._op]
                self.static[p] = v[p._value_index] if isinstance(v, tuple) else v
            elif p not in self.preds:
                self.preds.append(p)
        self._pos = {p: k for k, p in enumerate(self.preds)}
        self.literals = tuple(frames.op_cond(op))
        self.value = value
        # The op's arguments: per argument, (list count or None, sources), a source
        # ("in", position) or ("const", folded value).
        self.layout = []
        inputs, args = [], []
        i = 0
        for arg in ([] if value is not None else op._info.op_def.inputs):
            n = arg.count(op._attrs)
            srcs = []
            for t in op._inputs[i:i + (1 if n is None else n)]:
                if t._op in folded:
                    v = folded[t._op]
                    srcs.append(("const", v[t._value_index] if isinstance(v, tuple) else v))
                else:
                    srcs.append(("in", len(inputs)))
                    inputs.append(t)
                    args.append(xla_backend._Arg(arg.is_ref))
            i += len(srcs)
            self.layout.append((n, srcs))
        self._n_in = len(inputs)
        self._inputs = inputs + self.preds
        self._outputs = op._outputs
        self._control_inputs = op._control_inputs
        self._type = self.type = op._type
        self.name = self._name = op.name
        self.creation_site = op.creation_site
        self._attrs = {}
        self._info = _GateInfo(op._info, args + [xla_backend._Arg(False) for _ in self.preds])

    def __getattr__(self, name):
        return getattr(self.op, name)

    def _holds(self, lits, values):
        for p, b in lits:
            v = self.static[p] if p in self.static else values[self._pos[p]]
            if not self.frames.truth(v, b):
                return False
        return True

    def gate(self, kernel):
        """`kernel` behind this op's condition (a Merge: choosing the first input whose
        condition holds; a bound constant: its value)."""
        n_in, layout, n_out = self._n_in, self.layout, len(self._outputs)
        dead = None if n_out == 0 else (DEAD if n_out == 1 else (DEAD,) * n_out)
        conds, value = self.merge_conds, self.value

        def run(*values):
            preds = values[n_in:]
            if not self._holds(self.literals, preds):
                return dead
            if value is not None:
                return value
            args = []
            for n, srcs in layout:
                items = [values[s] if kind == "in" else s for kind, s in srcs]
                args.append(items[0] if n is None else items)
            if conds is None:
                return kernel(*args)
            for k, c in enumerate(conds):
                if self._holds(c, preds):
                    return args[0][k], np.int32(k)
            return dead
        return run


def add_folded(ops, folded, lowerable, frames):
    """Adds to `lowerable` the folded ops (computed when the plan was built, so they run
    nowhere) that depend on segment ops only: they may join a segment, so that one with
    control inputs on segment ops (TF1's `control_dependencies(UPDATE_OPS)` around
    `minimize`) does not cut the step in two. Not in a plan with a TF1 cond left on the
    host (or with v1 loop frames), where a folded op in a branch must stay where the
    host tracks its deadness (the folded ops of lowered conds are bound, not run)."""
    if any(op._type in _SWITCH for op in ops) and (frames is None or not frames.all_lowered):
        return
    for op in ops:
        if op not in folded or not (op._inputs or op._control_inputs) or \
                any(t._dtype.base_dtype.name == "string" for t in op._outputs):
            continue
        if all(c in lowerable for c in op._control_inputs) and all(
                t._op in lowerable or (t._op in folded and not t._op._control_inputs)
                for t in op._inputs):
            lowerable.add(op)
