"""Type changes and pass-through ops: Cast, the to_* helpers, StopGradient,
PreventGradient, IdentityN and Snapshot (saturate_cast is `saturate`'s)."""
import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.array.shape_util import static_value
from trainflow._src.framework.constant_op import dtype_string
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor

__all__ = ["cast", "to_float", "to_double", "to_int32", "to_int64",
           "to_bfloat16", "to_complex64", "to_complex128", "stop_gradient", "identity_n"]


# -- Cast -----------------------------------------------------------------------------
def cast_array(x, dst):
    """`x` converted to DType `dst` as TF's Cast kernel converts it.

    Float to int truncates toward zero (NaN and out-of-range values give the
    platform's result, as in TF); complex to real drops the imaginary part. The 8-, 4- and
    2-bit dtypes convert through ml_dtypes, between any numeric types: TF's CPU kernel has
    only the float8_e4m3fn/e5m2 casts from floats and to numbers (UnimplementedError for
    the rest), and gives the same values for those.

    Raises:
      UnimplementedError: for casts to or from strings.
    """
    np_type = dst.as_numpy_dtype
    src_kind = x.dtype.kind
    if src_kind == "O" or np_type is np.object_:
        if src_kind == "O" and np_type is np.object_:
            return x.copy()
        src = "string" if src_kind == "O" else dtype_string(dtypes.as_dtype(x.dtype))
        raise errors.UnimplementedError(None, None, f"Cast {src} to {dtype_string(dst)} is not "
                                                    "supported")
    if src_kind == "c" and dst.is_complex is False:
        x = x.real
    if src_kind in "fc" and np.dtype(np_type).kind in "iub":
        with np.errstate(invalid="ignore", over="ignore"):
            return x.astype(np_type)
    return x.astype(np_type)


def _cast_kernel(x, *, DstT):  # noqa: N803 - TF's attr name
    if isinstance(x, np.ndarray) and x.dtype.kind != "O" and x.dtype.kind != "c":
        if x.dtype.kind in "fV" and DstT.is_integer:  # V: ml_dtypes types
            with np.errstate(invalid="ignore", over="ignore"):
                return x.astype(DstT.as_numpy_dtype)
        if DstT.as_numpy_dtype is not np.object_:
            return x.astype(DstT.as_numpy_dtype)
    return cast_array(np.asarray(x), DstT)


register_op("Cast", inputs=["x: SrcT"], outputs=["y: DstT"],
            attrs=["SrcT: type", "DstT: type", "Truncate: bool = false"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_cast_kernel)


_CAST_GRAD_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16,
                    dtypes.complex64, dtypes.complex128)


@RegisterGradient("Cast")
def _cast_grad(op, grad):
    """Casts the gradient back to the source dtype; None unless both sides are
    floating or complex (a cast to or from an integer is not differentiable)."""
    src = op.inputs[0].dtype.base_dtype
    if src in _CAST_GRAD_TYPES and grad.dtype.base_dtype in _CAST_GRAD_TYPES:
        return cast(grad, src)
    return None


@tensor_util.register_constant_value("Cast")
def _cast_value(op, index, partial):
    value = static_value(op.inputs[0])
    if value is None:
        return None
    try:
        return cast_array(value, op._attrs["DstT"])
    except errors.OpError:
        return None


def cast(x, dtype, name=None):
    """Casts `x` (a tensor, SparseTensor or IndexedSlices) to `dtype` (`tf.cast`).

    Returns `x` itself when it is already a tensor (or resource variable) of that dtype,
    as TF does.
    """
    base = dtypes.as_dtype(dtype).base_dtype
    if (isinstance(x, Tensor) or getattr(x, "_is_resource_variable", False)) and \
            x.dtype == base:
        return x
    with name_scope(name, "Cast", [x]) as scope:
        if isinstance(x, SparseTensor):
            values = cast(x.values, base, name=scope)
            return SparseTensor(x.indices, values, x.dense_shape)
        if isinstance(x, IndexedSlices):
            values = cast(x.values, base, name=scope)
            return IndexedSlices(values, x.indices, x.dense_shape)
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype != base:
            x = apply_op("Cast", x=x, DstT=base, name=scope).outputs[0]
        return x


def to_complex64(x, name="ToComplex64"):
    """Casts to complex64 (TF1 `tf.to_complex64`)."""
    return cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    """Casts to complex128 (TF1 `tf.to_complex128`)."""
    return cast(x, dtypes.complex128, name=name)


def to_float(x, name="ToFloat"):
    """Casts to float32 (TF1 `tf.to_float`, op named "ToFloat")."""
    return cast(x, dtypes.float32, name=name)


def to_double(x, name="ToDouble"):
    """Casts to float64 (TF1 `tf.to_double`)."""
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    """Casts to int32 (TF1 `tf.to_int32`)."""
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    """Casts to int64 (TF1 `tf.to_int64`)."""
    return cast(x, dtypes.int64, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    """Casts to bfloat16 (TF1 `tf.to_bfloat16`)."""
    return cast(x, dtypes.bfloat16, name=name)


# -- pass-through ops ---------------------------------------------------------------------
def _pass_through(x):
    return x


register_op("StopGradient", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_pass_through,
            output_aliases_input=True)
register_op("PreventGradient", inputs=["input: T"], outputs=["output: T"],
            attrs=["T: type", "message: string = ''"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_pass_through,
            output_aliases_input=True)


def _snapshot_kernel(x):
    return np.array(x, copy=True)


register_op("Snapshot", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_snapshot_kernel)

# Gradients do not flow back through StopGradient: its input gets None.
NotDifferentiable("StopGradient")


@RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op, _):
    """Raises: LookupError naming the op's `message`, as TF does."""
    message = op._attrs.get("message", b"")
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    raise LookupError(f"Gradient explicitly disabled. Reason: {message} (op {op.name})")


@RegisterGradient("Snapshot")
def _snapshot_grad(op, grad):
    """A copy passes the gradient through. (TF registers no gradient for Snapshot and
    raises LookupError; the copy is an identity, so trainflow differentiates it.)"""
    return grad


@tensor_util.register_constant_value("StopGradient")
def _stop_gradient_value(op, index, partial):
    return tensor_util.constant_value(op.inputs[0], partial)


def stop_gradient(input, name=None):  # noqa: A002
    """Passes `input` through; gradients do not flow back through it (`tf.stop_gradient`)."""
    return apply_op("StopGradient", input=input, name=name).outputs[0]


def prevent_gradient(input, message="", name=None):  # noqa: A002
    """Passes `input` through; asking for its gradient is an error (PreventGradient)."""
    return apply_op("PreventGradient", input=input, message=message, name=name).outputs[0]


def _identity_n_kernel(input):  # noqa: A002
    return input[0] if len(input) == 1 else tuple(input)


register_op("IdentityN", inputs=["input: T"], outputs=["output: T"],
            attrs=["T: list(type) >= 1"],
            shape_fn=lambda op: [t.shape for t in op.inputs], kernel=_identity_n_kernel,
            output_aliases_input=True)


@RegisterGradient("IdentityN")
def _identity_n_grad(op, *grads):
    return list(grads)


def identity_n(input, name=None):  # noqa: A002
    """Passes a list of tensors through one IdentityN op (`tf.identity_n`)."""
    return apply_op("IdentityN", input=list(input), name=name).outputs
