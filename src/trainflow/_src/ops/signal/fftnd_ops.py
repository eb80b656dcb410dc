"""FFTND, IFFTND, RFFTND, IRFFTND (TF 2.x): transforms over any `axes` with an
`fft_length` per axis (registrations, NumPy kernels, shape functions, the XLA ones in
`xla_lowerings`) and `tf.signal.fftnd` ... with TF's defaults and `norm` scaling. TF
registers no gradient for these ops (nor, in TF 2.21, a CPU kernel: they run there on
the GPU only); this module gives them NumPy kernels and no gradient."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import shape as shape_ops
from trainflow._src.ops.array import slicing
from trainflow._src.ops.signal.fft_ops import _maybe_pad

__all__ = ["fftnd", "ifftnd", "rfftnd", "irfftnd"]

_COMPLEX = "Tcomplex: {complex64, complex128} = DT_COMPLEX64"
_REAL = "Treal: {float32, float64} = DT_FLOAT"
_NP = {"FFTND": np.fft.fftn, "IFFTND": np.fft.ifftn}


def _axes_lengths(fft_length, axes):
    return [int(n) for n in np.reshape(fft_length, -1)], [int(a) for a in np.reshape(axes, -1)]


def _complex_kernel(op_type):
    def kernel(input, fft_length, axes, *, Tcomplex):  # noqa: A002,N803 - TF's names
        lengths, axes = _axes_lengths(fft_length, axes)
        return _NP[op_type](input, s=lengths, axes=axes).astype(input.dtype, copy=False)
    return kernel


def _rfftnd_kernel(input, fft_length, axes, *, Treal, Tcomplex):  # noqa: A002,N803
    lengths, axes = _axes_lengths(fft_length, axes)
    return np.fft.rfftn(input, s=lengths, axes=axes).astype(Tcomplex.as_numpy_dtype)


def _irfftnd_kernel(input, fft_length, axes, *, Treal, Tcomplex):  # noqa: A002,N803
    lengths, axes = _axes_lengths(fft_length, axes)
    return np.fft.irfftn(input, s=lengths, axes=axes).astype(Treal.as_numpy_dtype)


def _shape_fn(forward_real):
    def shape_fn(op):
        shape = op._inputs[0]._shape
        if shape._dims is None:
            return [unknown_shape()]
        lengths, axes = constant_value(op._inputs[1]), constant_value(op._inputs[2])
        dims = list(shape._dims)
        if lengths is None or axes is None:
            if axes is None:
                return [TensorShape([None] * len(dims))]
            for a in np.reshape(axes, -1):
                dims[int(a)] = None
            return [TensorShape._from_values(tuple(dims))]
        lengths, axes = _axes_lengths(lengths, axes)
        for n, a in zip(lengths, axes):
            dims[a] = n
        if forward_real and axes:
            dims[axes[-1]] = lengths[-1] // 2 + 1
        return [TensorShape._from_values(tuple(dims))]
    return shape_fn


for _name in ("FFTND", "IFFTND"):
    register_op(_name, inputs=["input: Tcomplex", "fft_length: int32", "axes: int32"],
                outputs=["output: Tcomplex"], attrs=[_COMPLEX], shape_fn=_shape_fn(False),
                kernel=_complex_kernel(_name))
register_op("RFFTND", inputs=["input: Treal", "fft_length: int32", "axes: int32"],
            outputs=["output: Tcomplex"], attrs=[_REAL, _COMPLEX], shape_fn=_shape_fn(True),
            kernel=_rfftnd_kernel)
register_op("IRFFTND", inputs=["input: Tcomplex", "fft_length: int32", "axes: int32"],
            outputs=["output: Treal"], attrs=[_REAL, _COMPLEX], shape_fn=_shape_fn(False),
            kernel=_irfftnd_kernel)


def _prepare(input_tensor, fft_length, axes, preferred, inverse_real=False):
    axes = convert_to_tensor(np.arange(input_tensor.shape.ndims) if axes is None else axes,
                             dtypes.int32) if not hasattr(axes, "dtype") else axes
    rank = int(axes.shape[0])
    input_tensor.shape.with_rank_at_least(rank)
    if fft_length is None:
        if inverse_real:
            lengths = input_tensor.shape.as_list()
            lengths[-1] = max(0, 2 * (lengths[-1] - 1))
            fft_length = convert_to_tensor(lengths, dtypes.int32)
        else:
            fft_length = slicing.strided_slice(shape_ops.shape(input_tensor),
                                               [-input_tensor.shape.ndims], [0], end_mask=1)
    else:
        fft_length = convert_to_tensor(fft_length, dtypes.int32)
    input_tensor = _maybe_pad(input_tensor, rank, fft_length, inverse_real)
    static = constant_value(fft_length)
    if static is not None:
        fft_length = static
    del preferred
    return input_tensor, fft_length, axes


def _scale(input_tensor, fft_length, norm, forward):
    if norm is None or norm == "backward":
        return input_tensor
    n = 1
    for length in fft_length:
        n *= length
    if norm == "forward":
        return input_tensor / n if forward else input_tensor * n
    if norm == "ortho":
        return input_tensor / np.sqrt(n) if forward else input_tensor * np.sqrt(n)
    return input_tensor


def _complex_fn(op_type, default_name, forward):
    def fn(input_tensor, fft_length=None, axes=None, norm=None, name=None):
        with name_scope(name, default_name, [input_tensor, fft_length, axes]) as scope:
            axes = None if axes is None else convert_to_tensor(axes, dtypes.int32)
            input_tensor = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64)
            input_tensor, fft_length, axes = _prepare(input_tensor, fft_length, axes, None)
            input_tensor = _scale(input_tensor, fft_length, norm, forward)
            return apply_op(op_type, input=input_tensor, fft_length=fft_length, axes=axes,
                            name=scope).outputs[0]
    fn.__name__ = default_name
    fn.__doc__ = f"The {op_type} of `input_tensor` over `axes` (all, by default)."
    return fn


fftnd = _complex_fn("FFTND", "fftnd", True)
ifftnd = _complex_fn("IFFTND", "ifftnd", False)


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The RFFTND of a real tensor over `axes` (all, by default).

    Raises:
      ValueError: for an input that is not float32 or float64.
    """
    with name_scope(name, "rfftnd", [input_tensor, fft_length, axes]) as scope:
        axes = None if axes is None else convert_to_tensor(axes, dtypes.int32)
        input_tensor = convert_to_tensor(input_tensor, preferred_dtype=dtypes.float32)
        if input_tensor.dtype not in (dtypes.float32, dtypes.float64):
            raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: "
                             f"{input_tensor}")
        cplx = dtypes.complex64 if input_tensor.dtype == dtypes.float32 else dtypes.complex128
        input_tensor, fft_length, axes = _prepare(input_tensor, fft_length, axes, None)
        input_tensor = _scale(input_tensor, fft_length, norm, True)
        return apply_op("RFFTND", input=input_tensor, fft_length=fft_length, axes=axes,
                        Tcomplex=cplx, name=scope).outputs[0]


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The IRFFTND of a complex tensor over `axes` (all, by default).

    Raises:
      ValueError: for an input that is not complex64 or complex128.
    """
    with name_scope(name, "irfftnd", [input_tensor, fft_length]) as scope:
        axes = None if axes is None else convert_to_tensor(axes, dtypes.int32)
        input_tensor = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64)
        if input_tensor.dtype not in (dtypes.complex64, dtypes.complex128):
            raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: "
                             f"{input_tensor}")
        real = input_tensor.dtype.real_dtype
        input_tensor, fft_length, axes = _prepare(input_tensor, fft_length, axes, None, True)
        input_tensor = _scale(input_tensor, fft_length, norm, False)
        return apply_op("IRFFTND", input=input_tensor, fft_length=fft_length, axes=axes,
                        Treal=real, name=scope).outputs[0]
