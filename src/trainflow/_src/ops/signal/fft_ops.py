"""The FFT ops: FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D, RFFT, IRFFT, RFFT2D, IRFFT2D,
RFFT3D, IRFFT3D (registrations, NumPy kernels, shape functions), their Python functions
(`tf.signal.fft` ...) and gradients, and `fftshift` / `ifftshift`.

The kernels compute in double precision (NumPy's pocketfft) and round to the op's type.
"""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import cast as cast_ops
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_ops
from trainflow._src.ops.array import slicing
from trainflow._src.ops.array import space_batch
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "fftshift", "ifftshift"]

_COMPLEX = "Tcomplex: {complex64, complex128} = DT_COMPLEX64"
_REAL = "Treal: {float32, float64} = DT_FLOAT"
_SUFFIX = {1: "", 2: "2D", 3: "3D"}


def _complex_kernel(rank, inverse):
    fn = np.fft.ifftn if inverse else np.fft.fftn

    def kernel(input):  # noqa: A002 - TF's name
        axes = tuple(range(-rank, 0))
        return fn(input, axes=axes).astype(input.dtype, copy=False)
    return kernel


def _fitted(x, shape):
    """`x` cropped or zero-padded in its last len(shape) dimensions to `shape`."""
    rank = len(shape)
    lead = x.shape[:x.ndim - rank]
    crop = tuple(slice(0, min(d, n)) for d, n in zip(x.shape[-rank:], shape))
    x = x[(Ellipsis,) + crop]
    pads = [(0, 0)] * len(lead) + [(0, n - d) for d, n in zip(x.shape[-rank:], shape)]
    return np.pad(x, pads) if any(p for _, p in pads) else x


def _rfft_kernel(rank):
    def kernel(input, fft_length, *, Treal, Tcomplex):  # noqa: A002,N803 - TF's names
        fft_length = [int(n) for n in fft_length]
        x = _fitted(input, fft_length)
        if 0 in fft_length:
            shape = x.shape[:-1] + (fft_length[-1] // 2 + 1,)
            return np.zeros(shape, Tcomplex.as_numpy_dtype)
        out = np.fft.rfftn(x, axes=tuple(range(-rank, 0)))
        return out.astype(Tcomplex.as_numpy_dtype, copy=False)
    return kernel


def _irfft_kernel(rank):
    def kernel(input, fft_length, *, Treal, Tcomplex):  # noqa: A002,N803 - TF's names
        fft_length = [int(n) for n in fft_length]
        inner = list(fft_length[:-1]) + [fft_length[-1] // 2 + 1]
        x = _fitted(input, inner)
        if 0 in fft_length:
            return np.zeros(x.shape[:-1] + (fft_length[-1],), Treal.as_numpy_dtype)
        out = np.fft.irfftn(x, s=fft_length, axes=tuple(range(-rank, 0)))
        return out.astype(Treal.as_numpy_dtype, copy=False)
    return kernel


def _complex_shape_fn(rank):
    def shape_fn(op):
        return [op._inputs[0]._shape.with_rank_at_least(rank)]
    return shape_fn


def _real_shape_fn(rank, forward):
    def shape_fn(op):
        shape = op._inputs[0]._shape.with_rank_at_least(rank)
        op._inputs[1]._shape.with_rank(1)
        if shape._dims is None:
            return [unknown_shape()]
        dims = list(shape._dims)
        lengths = constant_value(op._inputs[1])
        if lengths is None:
            dims[-rank:] = [None] * rank
        else:
            lengths = [int(n) for n in lengths]
            dims[-rank:] = lengths
            if forward:
                dims[-1] = lengths[-1] // 2 + 1 if lengths[-1] else 0
        return [TensorShape._from_values(tuple(dims))]
    return shape_fn


for _rank, _suffix in _SUFFIX.items():
    for _name, _inverse in (("FFT", False), ("IFFT", True)):
        register_op(_name + _suffix, inputs=["input: Tcomplex"], outputs=["output: Tcomplex"],
                    attrs=[_COMPLEX], shape_fn=_complex_shape_fn(_rank),
                    kernel=_complex_kernel(_rank, _inverse))
    register_op("RFFT" + _suffix, inputs=["input: Treal", "fft_length: int32"],
                outputs=["output: Tcomplex"], attrs=[_REAL, _COMPLEX],
                shape_fn=_real_shape_fn(_rank, True), kernel=_rfft_kernel(_rank))
    register_op("IRFFT" + _suffix, inputs=["input: Tcomplex", "fft_length: int32"],
                outputs=["output: Treal"], attrs=[_REAL, _COMPLEX],
                shape_fn=_real_shape_fn(_rank, False), kernel=_irfft_kernel(_rank))


def _complex_fn(op_type):
    def fn(input, name=None):  # noqa: A002 - TF's name
        return apply_op(op_type, input=input, name=name).outputs[0]
    fn.__name__ = op_type.lower()
    fn.__doc__ = f"The {op_type} of the innermost dimension(s) of a complex tensor."
    return fn


fft, ifft = _complex_fn("FFT"), _complex_fn("IFFT")
fft2d, ifft2d = _complex_fn("FFT2D"), _complex_fn("IFFT2D")
fft3d, ifft3d = _complex_fn("FFT3D"), _complex_fn("IFFT3D")


def _infer_fft_length(input_tensor, rank, inverse):
    """TF's `_infer_fft_length_for_rfft` / `_for_irfft`: the inner dimensions (for an
    inverse, the last one as 2 * (n - 1)), static where the shape is known."""
    inner = input_tensor.shape[-rank:]
    if inner.is_fully_defined():
        lengths = [int(d) for d in inner.as_list()]
        if inverse:
            lengths[-1] = max(0, 2 * (lengths[-1] - 1))
        return convert_to_tensor(np.array(lengths, np.int32))
    lengths = slicing.strided_slice(shape_ops.shape(input_tensor), [-rank], [0], end_mask=1)
    if inverse:
        last = arith.maximum(0, 2 * (lengths[-1] - 1))
        lengths = join.concat([lengths[:-1], [last]], 0)
    return lengths


def _maybe_pad(input_tensor, rank, fft_length, inverse):
    """TF's `_maybe_pad_for_rfft`: zero-pads the inner dimensions up to fft_length (the
    last one to fft_length // 2 + 1 for an inverse): statically where both are known,
    else with a Pad of computed paddings."""
    lengths = constant_value(fft_length)
    dims = input_tensor.shape.as_list() if input_tensor.shape.rank is not None else None
    if dims is not None and 0 in dims:
        return input_tensor
    if lengths is not None and dims is not None and None not in dims[-rank:]:
        lengths = [int(n) for n in lengths]
        if inverse:
            lengths[-1] = lengths[-1] // 2 + 1
        pads = [max(0, n - d) for n, d in zip(lengths, dims[-rank:])]
        if not any(pads):
            return input_tensor
        paddings = [[0, 0]] * max(len(dims) - rank, 0) + [[0, p] for p in pads]
        return layout.pad(input_tensor, paddings)
    input_rank = shape_ops.rank(input_tensor)
    inner = slicing.strided_slice(shape_ops.shape(input_tensor), [-rank], [0], end_mask=1)
    outer = create.zeros([arith.maximum(0, input_rank - rank)], fft_length.dtype)
    if inverse:
        fft_length = join.concat([fft_length[:-1], fft_length[-1:] // 2 + 1], 0)
    paddings = join.concat([outer, arith.maximum(0, fft_length - inner)], 0)
    paddings = join.stack([create.zeros_like(paddings), paddings], axis=1)
    return layout.pad(input_tensor, paddings)


def _real_fn(rank, inverse):
    op_type = ("IRFFT" if inverse else "RFFT") + _SUFFIX[rank]
    default = op_type.lower()

    def fn(input_tensor, fft_length=None, name=None):
        with name_scope(name, default, [input_tensor, fft_length]) as scope:
            if inverse:
                input_tensor = convert_to_tensor(input_tensor, preferred_dtype=dtypes.complex64)
                real = input_tensor.dtype.real_dtype
                cplx = input_tensor.dtype
            else:
                input_tensor = convert_to_tensor(input_tensor, preferred_dtype=dtypes.float32)
                real = input_tensor.dtype
                if real not in (dtypes.float32, dtypes.float64):
                    raise ValueError(f"{default} needs a float32 or float64 input, got "
                                     f"{real.name}")
                cplx = dtypes.complex64 if real == dtypes.float32 else dtypes.complex128
            input_tensor.shape.with_rank_at_least(rank)
            if fft_length is None:
                fft_length = _infer_fft_length(input_tensor, rank, inverse)
            else:
                fft_length = convert_to_tensor(fft_length, dtypes.int32)
            input_tensor = _maybe_pad(input_tensor, rank, fft_length, inverse)
            return apply_op(op_type, input=input_tensor, fft_length=fft_length, Treal=real,
                            Tcomplex=cplx, name=scope).outputs[0]
    fn.__name__ = default
    fn.__doc__ = (f"The {op_type} of the innermost {rank} dimension(s); fft_length "
                  "defaults to the input's inner dimensions.")
    return fn


rfft, irfft = _real_fn(1, False), _real_fn(1, True)
rfft2d, irfft2d = _real_fn(2, False), _real_fn(2, True)
rfft3d, irfft3d = _real_fn(3, False), _real_fn(3, True)
_COMPLEX_FNS = {1: (fft, ifft), 2: (fft2d, ifft2d), 3: (fft3d, ifft3d)}
_REAL_FNS = {1: rfft, 2: rfft2d, 3: rfft3d}


def _fft_size_for_grad(grad, rank):
    return reductions.reduce_prod(slicing.strided_slice(shape_ops.shape(grad), [-rank], [0],
                                                        end_mask=1))


def _register_complex_grads(rank):
    forward, inverse = _COMPLEX_FNS[rank]
    suffix = _SUFFIX[rank]

    @RegisterGradient("FFT" + suffix)
    def _fft_grad(_, grad):
        size = cast_ops.cast(_fft_size_for_grad(grad, rank), grad.dtype)
        return inverse(grad) * size

    @RegisterGradient("IFFT" + suffix)
    def _ifft_grad(_, grad):
        real = grad.dtype.real_dtype
        rsize = cast_ops.cast(
            1. / cast_ops.cast(_fft_size_for_grad(grad, rank), real), grad.dtype)
        return forward(grad) * rsize


def _register_real_grads(rank):
    suffix = _SUFFIX[rank]
    inverse = _COMPLEX_FNS[rank][1]
    forward_real = _REAL_FNS[rank]

    @RegisterGradient("RFFT" + suffix)
    def _rfft_grad(op, grad):
        # d rfft(x) / dx: the gradient zero-padded to the full spectrum, through the
        # inverse complex FFT times its size, real part, cropped or padded back to x.
        x, fft_length = op.inputs
        ndims = grad.shape.ndims
        full = join.concat([slicing.strided_slice(shape_ops.shape(grad), [0], [-1]),
                            fft_length[-1:]], 0)
        pad_last = full[-1] - shape_ops.shape(grad)[-1]
        paddings = join.stack([create.zeros([ndims], dtypes.int32),
                               join.concat([create.zeros([ndims - 1], dtypes.int32),
                                            [pad_last]], 0)], 1)
        spectrum = layout.pad(grad, paddings)
        size = cast_ops.cast(reductions.reduce_prod(fft_length), grad.dtype)
        dx = arith.real(inverse(spectrum) * size)
        x_shape = shape_ops.shape(x)
        grow = arith.maximum(x_shape[-rank:] - fft_length, 0)
        lead = create.zeros([ndims - rank], dtypes.int32)
        dx = layout.pad(dx, join.stack([create.zeros([ndims], dtypes.int32),
                                        join.concat([lead, grow], 0)], 1))
        dx = slicing.slice(dx, create.zeros([ndims], dtypes.int32), x_shape)
        return dx, None

    @RegisterGradient("IRFFT" + suffix)
    def _irfft_grad(op, grad):
        fft_length = op.inputs[1]
        static = constant_value(fft_length)
        if static is not None:
            fft_length = static
        real = grad.dtype
        cplx = dtypes.complex64 if real == dtypes.float32 else dtypes.complex128
        is_odd = arith.mod(fft_length[-1], 2)
        last = shape_ops.shape(op.inputs[0])[-1]
        mask = join.concat([[1.0], 2.0 * create.ones([last - 2 + is_odd], real),
                            create.ones([1 - is_odd], real)], 0)
        rsize = arith.reciprocal(cast_ops.cast(_fft_size_for_grad(grad, rank), real))
        the_rfft = forward_real(grad, fft_length)
        return the_rfft * cast_ops.cast(rsize * mask, cplx), None


# TF registers gradients for RFFT / IRFFT and their 2D forms only (RFFT3D and IRFFT3D
# have none: tf.gradients raises LookupError through them, here as in TF).
for _rank in _SUFFIX:
    _register_complex_grads(_rank)
for _rank in (1, 2):
    _register_real_grads(_rank)


def _shifts(x, axes):
    """TF's shifts: half of each shifted dimension, from the (constant where static)
    shape."""
    if axes is None:
        return shape_ops.shape(x) // 2, tuple(range(x.shape.ndims))
    if isinstance(axes, int):
        return shape_ops.shape(x)[axes] // 2, axes
    return gather.gather(shape_ops.shape(x), axes) // 2, axes


def fftshift(x, axes=None, name=None):
    """Moves the zero-frequency term to the centre of the spectrum (`Roll`)."""
    with name_scope(name, "fftshift") as scope:
        x = convert_to_tensor(x)
        shift, axes = _shifts(x, axes)
        return space_batch.roll(x, shift, axes, name=scope)


def ifftshift(x, axes=None, name=None):
    """The inverse of `fftshift` (`Roll`)."""
    with name_scope(name, "ifftshift") as scope:
        x = convert_to_tensor(x)
        shift, axes = _shifts(x, axes)
        return space_batch.roll(x, -shift, axes, name=scope)
