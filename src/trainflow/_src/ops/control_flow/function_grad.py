"""The gradient graph of a function an op calls (If's branches, PartitionedCall's `f`):
a copy of the function, rebuilt from its FunctionDef, that takes the forward inputs and
then one gradient per chosen output, and returns `tf.gradients` of the chosen inputs
(zeros where an input does not reach those outputs). It recomputes the forward function,
so stateful ops inside it run again in the gradient."""
import itertools

from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.gradients.gradients_impl import gradients
from trainflow._src.ops.array import create

_grad_ids = itertools.count(1)


def trainable(t):
    """Whether gradients flow through `t` (floating or complex)."""
    base = t.dtype.base_dtype
    return base.is_floating or base.is_complex


def gradient_function(fg, op, inputs, positions, out_positions, library):
    """The gradient FuncGraph of `fg`, called by `op` with `inputs`.

    Args:
      fg: the forward FuncGraph.
      op: the calling op (its outputs give the gradients' dtypes and shapes).
      inputs: the op's tensors passed to `fg`.
      positions: the indices of the inputs to differentiate.
      out_positions: the indices of the outputs whose gradients come in.
      library: {function name: FunctionDef} holding `fg` and what it calls.

    Raises:
      LookupError: `fg` was not built in this process (a function from a GraphDef).
    """
    # lazy: keeps protobuf out of `import trainflow`
    from trainflow._src.framework.function_import import function_graph_from_def
    if not isinstance(fg, FuncGraph):
        raise LookupError(f"No gradient for {op.type} op {op.name}: its function "
                          f"'{getattr(fg, 'name', fg)}' was not built in this process")
    copy = function_graph_from_def(library[fg.name], library, op.graph, {},
                                   name=f"{fg.name}_grad_{next(_grad_ids)}",
                                   input_shapes=[t.shape for t in inputs])
    with copy.as_default():
        xs = [copy.inputs[i] for i in positions]
        ys = [copy.outputs[k] for k in out_positions]
        grad_ys = [copy.add_input(op.outputs[k].dtype.base_dtype, op.outputs[k].shape,
                                  f"grad_{k}") for k in out_positions]
        outputs = []
        for grad, x in zip(gradients(ys, xs, grad_ys=grad_ys), xs):
            if grad is None:
                grad = create.zeros_like(x)
            elif isinstance(grad, IndexedSlices):
                grad = convert_to_tensor(grad)
            outputs.append(grad)
        copy.outputs = outputs
    return copy
