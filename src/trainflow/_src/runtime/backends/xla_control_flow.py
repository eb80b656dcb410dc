"""XLA lowerings of TensorFlow's functional control flow: `While` / `StatelessWhile`
(what `tf.while_loop` builds) become `lax.while_loop`, `If` / `StatelessIf` (cond_v2's
form, e.g. from an imported graph) become `lax.cond`; a bare `Assert` becomes a
run-time check.

Their function graphs (framework/function_graph.FuncGraph) are lowered op by op with the
backend's own per-op lowering (`xla_backend.lower_op`), so a loop or branch nested in a
body is lowered the same way, recursively. Run-time checks made inside a body (a NaN
check, a gather index) are carried out of the loop as one flag; when it is set, the
segment runs the step again on NumPy, which raises the op's own error.

What stays on the host (the op is not lowered; its function graphs still run through
the session's planner, so with XLA on they are compiled plans of their own):
- a While whose gradient was built (it records each iteration's values for WhileGrad,
  which runs on the host too);
- a function graph holding an op without a lowering, a host-only op, TF1 control flow
  (Switch/Merge, e.g. a `tf.cond` inside a loop body), or a captured variable that the
  body assigns to (a REF capture);
- If branches that capture outer tensors.
TF1 conds in a plan (Switch/Merge) are lowered by xla_cond.py; inside a function body
they keep the body on the host.
"""
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework import registry
from trainflow._src.framework.function_graph import REF, FuncGraph
from trainflow._src.ops.control_flow import while_records
from trainflow._src.runtime.backends import xla_backend

XLA = xla_backend.NAME
_TF1_FRAMES = ("Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
               "RefExit", "NextIteration", "RefNextIteration", "LoopCond")
_FAILED = "a check inside a function body failed"


class NotLowerable(Exception):
    """A function graph that cannot be traced: the segment runs on NumPy."""


def _graph_ops(fg):
    """The ops of `fg` that its outputs need (through inputs and control inputs), in a
    valid run order, without the argument placeholders."""
    args = {t._op for t in fg.inputs} | {c.inner._op for c in fg.captures}
    order, done = [], set()
    for out in fg.outputs:
        stack = [(out._op, False)]
        while stack:
            op, expanded = stack.pop()
            if op in done:
                continue
            if expanded:
                done.add(op)
                if op not in args:
                    order.append(op)
                continue
            stack.append((op, True))
            for dep in list(op._control_inputs) + [t._op for t in op._inputs]:
                if dep not in done and dep.graph is fg:
                    stack.append((dep, False))
    return order


_graph_verdicts = weakref.WeakKeyDictionary()


# Ops whose outputs are known while tracing (shapes are static under jit).
_STATIC_SOURCES = ("Const", "Shape", "ShapeN", "Size", "Rank")


def graph_lowerable(fg):
    """Whether every op `fg` runs has a lowering and needs no host (memoized). An op
    without a lowering passes when all its inputs are known while tracing (constants,
    shapes): the segment then runs its NumPy kernel at trace time, as for
    DynamicStitch in the gradient of a reduction."""
    if not isinstance(fg, FuncGraph):
        return False  # a function by name, not built in this process
    verdict = _graph_verdicts.get(fg)
    if verdict is None:
        verdict = not any(c.mode == REF for c in fg.captures) and _ops_lowerable(fg)
        _graph_verdicts[fg] = verdict
    return verdict


def _ops_lowerable(fg):
    static = set()
    for op in _graph_ops(fg):
        info = op._info
        known = op._type in _STATIC_SOURCES or (
            op._inputs and all(t._op in static for t in op._inputs) and info is not None
            and info.kernel is not None and not info.stateful and not info.kernel_wants_ctx)
        if known:
            static.add(op)
        elif not _op_lowerable(op):
            return False
    return True


def _op_lowerable(op):
    info = op._info
    if op._type in _TF1_FRAMES or info is None or info.host_only or info.blocking:
        return False
    fn = registry.kernel(op._type, XLA)
    if fn is None:
        return False
    applies = getattr(fn, "applies_to", None)
    return applies is None or applies(op)


def _trace(fg, env, failed):
    """Lowers the ops of `fg` into `env` (tensor -> value); returns its outputs and the
    flag `failed` or-ed with the checks its ops made."""
    checks = []
    for op in _graph_ops(fg):
        for t, v in zip(op._outputs, xla_backend.lower_op(op, env, {}, checks)):
            env[t] = v
    for _, flag, _, _ in checks:
        failed = jnp.logical_or(failed, flag)
    return [env[t] for t in fg.outputs], failed


def _as(value, tensor):
    """`value` as an array of `tensor`'s dtype."""
    return jnp.asarray(value, dtype=tensor._dtype.base_dtype.as_numpy_dtype)


def _truth(pred):
    """TF's rule for a predicate: a scalar is true when nonzero; any other tensor when
    it is not empty (known while tracing)."""
    if jnp.ndim(pred) == 0:
        if isinstance(pred, (np.ndarray, np.generic)):
            return bool(pred)
        return pred if jnp.result_type(pred) == jnp.bool_ else pred != 0
    return int(np.prod(jnp.shape(pred))) > 0


# -- While ---------------------------------------------------------------------------------
def _while_applies(op):
    return while_records.recorded_tensors(op) is None and \
        graph_lowerable(op._attrs["cond"]) and graph_lowerable(op._attrs["body"])


def _while(input, *, op, check):  # noqa: A002 - TF's argument name
    if not _while_applies(op):
        raise NotLowerable(f"{op.name}: its functions or its gradient record need the host")
    cond_g, body_g = op._attrs["cond"], op._attrs["body"]
    n = len(body_g.outputs)
    inputs = list(input)

    def env_of(fg, values):
        env = dict(zip(fg.inputs, values))
        for c in fg.captures:
            env[c.inner] = inputs[n + fg.external_index[c.outer]]
        return env

    init = tuple(_as(v, t) for v, t in zip(inputs[:n], op._inputs[:n]))

    def cond_fn(carry):
        values, _ = carry
        outs, cond_failed = _trace(cond_g, env_of(cond_g, values), False)
        if cond_failed is not False:
            raise NotLowerable(f"{op.name}: its condition makes run-time checks")
        truth = _truth(outs[0])
        return jnp.asarray(truth) if isinstance(truth, bool) else truth

    def body_fn(carry):
        values, failed = carry
        outs, failed = _trace(body_g, env_of(body_g, values), failed)
        new = tuple(jnp.asarray(v, dtype=jnp.result_type(old)) for v, old in zip(outs, values))
        for v, old in zip(new, values):
            if jnp.shape(v) != jnp.shape(old):
                raise NotLowerable(f"{op.name}: a loop variable changes shape "
                                   f"{jnp.shape(old)} -> {jnp.shape(v)}")
        return new, jnp.asarray(failed)

    values, failed = jax.lax.while_loop(cond_fn, body_fn, (init, jnp.asarray(False)))
    check(failed, _FAILED)
    return tuple(values) + tuple(inputs[n:])


_while.applies_to = _while_applies


# -- If --------------------------------------------------------------------------------------
def _if_applies(op):
    branches = (op._attrs["then_branch"], op._attrs["else_branch"])
    return op._inputs[0]._dtype.base_dtype.name != "string" and \
        all(graph_lowerable(fg) and not fg.captures for fg in branches)


def _if(cond, input, *, op, check):  # noqa: A002 - TF's argument name
    if not _if_applies(op):
        raise NotLowerable(f"{op.name}: its condition or branches need the host")
    outputs = op._outputs

    def branch(fg):
        def run(values):
            outs, failed = _trace(fg, dict(zip(fg.inputs, values)), False)
            return tuple(_as(v, t) for v, t in zip(outs, outputs)), jnp.asarray(failed)
        return run

    then_fn, else_fn = branch(op._attrs["then_branch"]), branch(op._attrs["else_branch"])
    truth = _truth(cond)
    values = tuple(input)
    if isinstance(truth, bool):  # known while tracing: only the taken branch is traced
        outs, failed = (then_fn if truth else else_fn)(values)
    else:
        outs, failed = jax.lax.cond(truth, then_fn, else_fn, values)
    check(failed, _FAILED)
    return outs


_if.applies_to = _if_applies


# -- Assert --------------------------------------------------------------------------------
def _assert_applies(op):
    # String data the segment cannot carry must be constants (folded while tracing).
    return all(t._dtype.base_dtype.name != "string" or t._op._type == "Const"
               for t in op._inputs[1:])


def _assert(condition, data, *, check):
    """A bare Assert (tf.Assert with string/int32 data) as a run-time check; the NumPy
    kernel's message comes from the re-run when it fails."""
    if int(np.prod(jnp.shape(condition))) != 1:
        raise NotLowerable("Assert: the condition is not a scalar")
    check(jnp.logical_not(jnp.reshape(condition, ())), "assertion failed")
    return ()


_assert.applies_to = _assert_applies


def register_all():
    """Registers the lowerings of this module (idempotent)."""
    registry.register_kernel("Assert", _assert, backend=XLA)
    for op_type in ("While", "StatelessWhile"):
        registry.register_kernel(op_type, _while, backend=XLA)
    for op_type in ("If", "StatelessIf"):
        registry.register_kernel(op_type, _if, backend=XLA)


register_all()
