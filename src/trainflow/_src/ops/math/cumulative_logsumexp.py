"""`tf.math.cumulative_logsumexp`: the CumulativeLogsumexp scan (log of the running sum
of exp(x)), its kernel and gradient."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.math.argmax_scan import _scan_kernel
from trainflow._src.ops.math.shapes import scan_shape_fn
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import gather
from trainflow._src.ops.math import arith

__all__ = ["cumulative_logsumexp"]


def _logaddexp_scan(src, axis, dtype):
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(src.astype(dtype), axis=axis)


register_op("CumulativeLogsumexp", inputs=["x: T", "axis: Tidx"], outputs=["out: T"],
            attrs=["exclusive: bool = false", "reverse: bool = false",
                   "T: {float16, float32, float64}", "Tidx: {int32, int64} = DT_INT32"],
            shape_fn=scan_shape_fn, kernel=_scan_kernel(_logaddexp_scan, -np.inf))


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """log(cumsum(exp(x))) along `axis`, computed stably (`CumulativeLogsumexp`);
    `exclusive` starts at -inf, `reverse` runs from the end."""
    with get_default_graph().name_scope(name or "CumulativeLogsumexp") as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("CumulativeLogsumexp", x=x, axis=axis, exclusive=exclusive,
                        reverse=reverse, name=scope).outputs[0]


@RegisterGradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op, grad):
    # dy_i/dx_j = exp(x_j - y_i) for the j summed into y_i, so dx_j = exp(x_j) *
    # (the reverse scan of grad_i exp(-y_i)); the positive and negative parts of grad
    # are scanned separately in log space to stay finite.
    x, axis = op.inputs
    y = op.outputs[0]
    exclusive = op.get_attr("exclusive")
    reverse = op.get_attr("reverse")
    lowest = grad.dtype.min
    log_pos = gather.where_v2(arith.greater(grad, 0), arith.log(grad), lowest)
    log_neg = gather.where_v2(arith.less(grad, 0), arith.log(-grad), lowest)
    pos = arith.exp(cumulative_logsumexp(log_pos - y, axis=axis, reverse=not reverse,
                                            exclusive=exclusive) + x)
    neg = arith.exp(cumulative_logsumexp(log_neg - y, axis=axis, reverse=not reverse,
                                            exclusive=exclusive) + x)
    return [pos - neg, None]
