"""Numeric checks: CheckNumerics, `verify_tensor_all_finite`, `add_check_numerics_ops`."""
import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import colocate_with, control_dependencies, name_scope
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.control_flow.grouping import group, with_dependencies


def _check_numerics_kernel(tensor, *, message):
    arr = np.asarray(tensor)
    if arr.size and not np.isfinite(arr).all():
        has_nan = bool(np.isnan(arr).any())
        has_inf = bool(np.isinf(arr).any())
        status = "Inf and NaN" if has_nan and has_inf else ("Inf" if has_inf else "NaN")
        raise errors.InvalidArgumentError(
            None, None, f"{message.decode('utf-8', errors='backslashreplace')} : Tensor had "
                        f"{status} values")
    return tensor


register_op("CheckNumerics", inputs=["tensor: T"], outputs=["output: T"],
            attrs=["T: {bfloat16, half, float, double}", "message: string"],
            shape_fn=unchanged_shape, kernel=_check_numerics_kernel, stateful=True,
            output_aliases_input=True)


@RegisterGradient("CheckNumerics")
def _check_numerics_grad(op, grad):
    """The gradient is checked too, with TensorFlow's message naming the forward check."""
    return check_numerics(
        grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. %s"
        % op._attrs["message"])


def check_numerics(tensor, message, name=None):
    """`tensor`, checked when it runs: InvalidArgumentError "<message> : Tensor had NaN
    values" (or Inf, or Inf and NaN) if it holds any.

    Raises:
      TypeError: if `tensor` is not a floating-point tensor.
    """
    return apply_op("CheckNumerics", tensor=tensor, message=message, name=name).outputs[0]


def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """`t` (alias `x`) after a CheckNumerics with message `msg` (alias `message`) ran."""
    t = x if t is None else t
    msg = message if msg is None else msg
    with name_scope(name, "VerifyFinite", [t]):
        t = convert_to_tensor(t, name="x")
        with colocate_with(t):
            verify_input = check_numerics(t, message=msg)
            return with_dependencies([verify_input], t)


def add_check_numerics_ops():
    """A group op running CheckNumerics on every half/float/double tensor of the
    default graph (each message names the tensor, e.g. "dense/MatMul:0").

    Raises:
      ValueError: if the graph holds conditionals (TF1 contexts), which these
        checks cannot follow.
    """
    check_op = []
    for op in get_default_graph().get_operations():
        for output in op.outputs:
            if output.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
                if op._cond_context is not None:
                    raise ValueError("`tf.add_check_numerics_ops() is not compatible with "
                                     "TensorFlow control flow operations such as `tf.cond()` "
                                     "or `tf.while_loop()`.")
                message = op.name + ":" + str(output.value_index)
                with control_dependencies(check_op):
                    check_op = [check_numerics(output, message=message)]
    return group(*check_op)
