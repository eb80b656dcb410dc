"""TensorFlow's functional conditional, `If` / `StatelessIf` (what cond_v2 emits),
so graphs from TF2-style control flow run. trainflow's own `tf.cond` builds the
TF1 Switch/Merge form (ops/control_flow/cond.py).

Gradient: another If on the same condition whose branches are copies of the
forward branches (rebuilt from their FunctionDefs) extended with `tf.gradients`
of their outputs: each gradient branch recomputes its forward branch from the
forward inputs and returns the gradients of those inputs. Stateful ops inside a
branch therefore run again in the gradient.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.ops.control_flow.function_grad import gradient_function, trainable


def _truthy(cond):
    """TF's rule: a scalar is true when nonzero; any other tensor when non-empty."""
    arr = np.asarray(cond)
    if arr.ndim == 0:
        value = arr[()]
        return bool(len(value)) if isinstance(value, bytes) else bool(value)
    return arr.size > 0


class _BranchRunner:
    """The compiled then/else functions of one If op in one session."""

    def __init__(self, ctx):
        op = ctx.op
        self.plans = []
        for key in ("then_branch", "else_branch"):
            fg = op._attrs[key]
            if not isinstance(fg, FuncGraph):
                raise errors.UnimplementedError(
                    None, op, f"If op {op.name} refers to function "
                              f"'{getattr(fg, 'name', fg)}' that was not built in this process")
            self.plans.append(ctx.make_callable(fg.outputs, fg.inputs))

    def run(self, cond, inputs):
        plan = self.plans[0] if _truthy(cond) else self.plans[1]
        return plan(list(inputs))


def _if_kernel(cond, input, *, ctx):  # noqa: A002 - TF's argument name
    runner = ctx.state.get("runner")
    if runner is None:
        runner = ctx.state["runner"] = _BranchRunner(ctx)
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


@RegisterGradient("If")
def _if_grad(op, *grads):
    """Gradients of an If's inputs (none for the condition)."""
    inputs = op.inputs[1:]
    result = [None] * len(op.inputs)
    positions = [i for i, t in enumerate(inputs) if trainable(t)]
    out_positions = [k for k, g in enumerate(grads)
                     if g is not None and trainable(op.outputs[k])]
    if not positions or not out_positions:
        return result
    # lazy: keeps protobuf out of `import trainflow`
    from trainflow._src.framework.graph_export import to_function_defs
    library = {fdef.signature.name: fdef for fdef in to_function_defs(op)}
    branches = [gradient_function(op._attrs[key], op, inputs, positions, out_positions,
                                   library)
                for key in ("then_branch", "else_branch")]
    grad_ys = [convert_to_tensor(grads[k]) for k in out_positions]
    grad_if = apply_op(op.type, cond=op.inputs[0], input=list(inputs) + grad_ys,
                       Tout=[inputs[i].dtype.base_dtype for i in positions],
                       then_branch=branches[0], else_branch=branches[1],
                       output_shapes=[inputs[i].shape for i in positions], name=op.type)
    for n, i in enumerate(positions):
        result[1 + i] = grad_if.outputs[n]
    return result


RegisterGradient("StatelessIf")(_if_grad)
