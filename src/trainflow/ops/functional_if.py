"""TensorFlow's functional conditional, `If` / `StatelessIf` (what cond_v2 emits),
so graphs from TF2-style control flow run. trainflow's own `tf.cond` builds the
TF1 Switch/Merge form (ops/cond.py)."""
import numpy as np

from trainflow.framework import errors
from trainflow.framework.registry import register_op
from trainflow.ops.function_graph import FuncGraph
from trainflow.runtime.executor import Plan


def _truthy(cond):
    """TF's rule: a scalar is true when nonzero; any other tensor when non-empty."""
    arr = np.asarray(cond)
    if arr.ndim == 0:
        value = arr[()]
        return bool(len(value)) if isinstance(value, bytes) else bool(value)
    return arr.size > 0


class _BranchRunner:
    """The compiled then/else functions of one If op in one session."""

    def __init__(self, op, session):
        self.plans = []
        for key in ("then_branch", "else_branch"):
            fg = op._attrs[key]
            if not isinstance(fg, FuncGraph):
                raise errors.UnimplementedError(
                    None, op, f"If op {op.name} refers to function "
                              f"'{getattr(fg, 'name', fg)}' that was not built in this process")
            self.plans.append(Plan(session, fg.outputs, [], fg.inputs))

    def run(self, cond, inputs):
        plan = self.plans[0] if _truthy(cond) else self.plans[1]
        return plan.run(list(inputs))


def _if_kernel(cond, input, *, ctx):  # noqa: A002 - TF's argument name
    runner = ctx.state.get("runner")
    if runner is None:
        runner = ctx.state["runner"] = _BranchRunner(ctx.op, ctx.session)
    outs = runner.run(cond, input)
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else tuple(outs)


def _if_shape(op):
    shapes = op._attrs.get("output_shapes")
    return list(shapes) if shapes else None


for _type, _stateful in (("If", True), ("StatelessIf", False)):
    register_op(_type, inputs=["cond: Tcond", "input: Tin"], outputs=["output: Tout"],
                attrs=["Tcond: type", "Tin: list(type) >= 0", "Tout: list(type) >= 0",
                       "then_branch: func", "else_branch: func",
                       "output_shapes: list(shape) = []"],
                shape_fn=_if_shape, kernel=_if_kernel, stateful=_stateful,
                output_aliases_input=True)
