"""Identity-like ops that state a fact about their input: EnsureShape (`tf.ensure_shape`:
the shape is checked when the op runs and merged into the static shape; its gradient
passes through) and GuaranteeConst (`tf.guarantee_const`: a promise that the value is
constant; TensorFlow defines no gradient for it)."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_shape import as_shape
from trainflow._src.ops.array.shape_util import invalid_argument

__all__ = ["ensure_shape", "guarantee_const"]


def _fmt(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _ensure_shape_kernel(input, *, shape):  # noqa: A002 - TF's names
    x = np.asarray(input)
    want = as_shape(shape)
    if want.rank is not None and (
            x.ndim != want.rank
            or any(d is not None and d != s for d, s in zip(want.as_list(), x.shape))):
        raise invalid_argument(f"Shape of tensor {_fmt(x.shape)} is not compatible with "
                               f"expected shape {_fmt(want.as_list())}.")
    return x


def _ensure_shape_shape(op):
    have, want = op.inputs[0].shape, as_shape(op._attrs["shape"])
    if not have.is_compatible_with(want):
        raise ValueError(f"Shape {have} is not compatible with expected shape {want} for "
                         f"'{op.name}'")
    return [have.merge_with(want)]


register_op("EnsureShape", inputs=["input: T"], outputs=["output: T"],
            attrs=["shape: shape", "T: type"], shape_fn=_ensure_shape_shape,
            kernel=_ensure_shape_kernel, output_aliases_input=True)


@RegisterGradient("EnsureShape")
def _ensure_shape_grad(op, grad):
    return grad


def ensure_shape(x, shape, name=None):
    """`x`, checked when it runs to have a shape compatible with `shape` (a partial
    shape); the static shape becomes the merge of both.

    Raises:
      ValueError: if the static shapes are already incompatible, or `shape` has an
        unknown rank (as in TensorFlow, which takes its dims as a list).
    """
    dims = as_shape(shape).as_list()
    return apply_op("EnsureShape", input=x, shape=as_shape(dims), name=name).outputs[0]


register_op("GuaranteeConst", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=lambda input: input,  # noqa: A006
            output_aliases_input=True)


def guarantee_const(input, name=None):  # noqa: A002 - TF's name
    """`input`, promised constant for the rest of the program (`GuaranteeConst`)."""
    return apply_op("GuaranteeConst", input=input, name=name).outputs[0]
