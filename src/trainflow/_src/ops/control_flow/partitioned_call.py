"""TensorFlow's function-call ops, `PartitionedCall` / `StatefulPartitionedCall` (how TF2
graphs call a `tf.function`: the signatures and the save/restore functions of a TF2
SavedModel), so graphs that use them run: the kernel calls the function `f` with the op's
inputs and returns its outputs.

Gradient: another call of the same type, whose function is a copy of `f` extended with
`tf.gradients` of its outputs (it recomputes the forward function from the forward inputs
and returns the gradients of the trainable inputs)."""
from trainflow._src.framework import errors
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.control_flow.function_grad import gradient_function, trainable


def _call_kernel(args, *, ctx):
    plan = ctx.state.get("plan")
    if plan is None:
        fg = ctx.op._attrs["f"]
        if not isinstance(fg, FuncGraph):
            raise errors.UnimplementedError(
                None, ctx.op, f"{ctx.op.type} op {ctx.op.name} refers to function "
                              f"'{getattr(fg, 'name', fg)}' that was not built in this process")
        plan = ctx.state["plan"] = ctx.make_callable(fg.outputs, fg.inputs)
    outs = plan(list(args))
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else tuple(outs)


def _call_shape(op):
    fg = op._attrs.get("f")
    if isinstance(fg, FuncGraph) and len(fg.outputs) == len(op._attrs.get("Tout") or ()):
        return [t.shape for t in fg.outputs]
    return None


for _type, _stateful in (("PartitionedCall", False), ("StatefulPartitionedCall", True)):
    register_op(_type, inputs=["args: Tin"], outputs=["output: Tout"],
                attrs=["Tin: list(type) >= 0", "Tout: list(type) >= 0", "f: func",
                       "config: string = ''", "config_proto: string = ''",
                       "executor_type: string = ''"],
                shape_fn=_call_shape, kernel=_call_kernel, stateful=_stateful,
                output_aliases_input=True)


@RegisterGradient("PartitionedCall")
def _call_grad(op, *grads):
    """Gradients of a call's trainable inputs."""
    result = [None] * len(op.inputs)
    positions = [i for i, t in enumerate(op.inputs) if trainable(t)]
    out_positions = [k for k, g in enumerate(grads)
                     if g is not None and trainable(op.outputs[k])]
    if not positions or not out_positions:
        return result
    # lazy: keeps protobuf out of `import trainflow`
    from trainflow._src.framework.graph_export import to_function_defs
    library = {fdef.signature.name: fdef for fdef in to_function_defs(op)}
    fg = gradient_function(op._attrs["f"], op, op.inputs, positions, out_positions, library)
    grad_ys = [convert_to_tensor(grads[k]) for k in out_positions]
    call = apply_op(op.type, args=list(op.inputs) + grad_ys,
                    Tout=[op.inputs[i].dtype.base_dtype for i in positions], f=fg,
                    name=op.type)
    for n, i in enumerate(positions):
        result[i] = call.outputs[n]
    return result


RegisterGradient("StatefulPartitionedCall")(_call_grad)
