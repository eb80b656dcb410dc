"""`tf.signal.dct` / `idct`: the discrete cosine transforms of types I-IV over the last
axis, computed through the RFFT (scipy's scaling; norm="ortho" for types II-IV)."""
import math

import numpy as np

from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import cast as cast_ops
from trainflow._src.ops.array import create
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_ops
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import complex_ops
from trainflow._src.ops.signal import fft_ops

__all__ = ["dct", "idct"]


def _validate(input_tensor, dct_type, n, axis, norm):
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        shape = getattr(input_tensor, "shape", None)
        dims = list(np.shape(input_tensor)) if shape is None or isinstance(shape, tuple) \
            else (shape.as_list() if shape.rank is not None else None)
        last = dims[-1] if dims else None
        if last is not None and last < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _last_dim(x):
    dims = x.shape.as_list() if x.shape.rank is not None else None
    return dims[-1] if dims and dims[-1] is not None else shape_ops.shape(x)[-1]


def _weights(first, rest, size):
    """[first, rest, rest, ...] of length `size`."""
    return layout.pad(shape_ops.expand_dims(first, 0), [[0, size - 1]],
                      constant_values=rest)


def _phase(x, length_float, sign):
    zero = convert_to_tensor(0.0, dtype=x.dtype)
    angle = sign * create.range(length_float) * math.pi * 0.5 / length_float
    return 2.0 * arith.exp(complex_ops.complex(zero, angle))


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """The type-I/II/III/IV DCT of the last axis of a float tensor, cut or zero-padded to
    `n` first.

    Raises:
      ValueError: for a type outside 1-4, an unknown norm, norm="ortho" with type 1, n < 1.
      NotImplementedError: for an axis other than -1.
    """
    _validate(input, type, n, axis, norm)
    with name_scope(name, "dct", [input]):
        x = convert_to_tensor(input)
        seq_len = _last_dim(x)
        if n is not None:
            if isinstance(seq_len, int) and n <= seq_len:
                x = x[..., 0:n]
            else:
                rank = x.shape.ndims
                x = layout.pad(x, [[0, 0]] * (rank - 1) + [[0, n - seq_len]])
        size = _last_dim(x)
        size_float = cast_ops.cast(size, x.dtype)
        if type == 1:
            extended = join.concat([x, x[..., -2:0:-1]], axis=-1)
            return arith.real(fft_ops.rfft(extended))
        if type == 2:
            spectrum = fft_ops.rfft(x, fft_length=[2 * size])[..., :size]
            out = arith.real(spectrum * _phase(x, size_float, -1.0))
            if norm == "ortho":
                n1 = 0.5 * arith.rsqrt(size_float)
                out *= _weights(n1, n1 * math.sqrt(2.0), size)
            return out
        if type == 3:
            zero = convert_to_tensor(0.0, dtype=x.dtype)
            if norm == "ortho":
                n1 = arith.sqrt(size_float)
                x *= _weights(n1, n1 * math.sqrt(0.5), size)
            else:
                x *= size_float
            scaled = _phase(x, size_float, 1.0) * complex_ops.complex(x, zero)
            return arith.real(fft_ops.irfft(scaled, fft_length=[2 * size]))[..., :size]
        return _dct4(x, size, size_float, norm)


def _dct4(x, size, size_float, norm):
    """X_k = 2 sum_n x_n cos(pi (n + 1/2)(k + 1/2) / N): a length-2N complex FFT of x
    twisted by exp(-i pi n / 2N), twisted back by exp(-i pi (2k + 1) / 4N)."""
    zero = convert_to_tensor(0.0, dtype=x.dtype)
    count = create.range(size_float)
    pre = arith.exp(complex_ops.complex(zero, -math.pi * count / (2.0 * size_float)))
    twisted = complex_ops.complex(x, create.zeros_like(x)) * pre
    rank = x.shape.ndims
    padded = layout.pad(twisted, [[0, 0]] * (rank - 1) + [[0, size]])
    spectrum = fft_ops.fft(padded)[..., :size]
    post = arith.exp(complex_ops.complex(zero, -math.pi * (2.0 * count + 1.0)
                                         / (4.0 * size_float)))
    out = 2.0 * arith.real(spectrum * post)
    if norm == "ortho":
        out *= math.sqrt(0.5) * arith.rsqrt(size_float)
    return out


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """The inverse DCT: idct of type 2 is dct of type 3 and the other way round (divided
    by 2N without norm="ortho"); 1 and 4 are their own inverses up to scale."""
    _validate(input, type, n, axis, norm)
    inverse_type = {1: 1, 2: 3, 3: 2, 4: 4}[type]
    return dct(input, type=inverse_type, n=n, axis=axis, norm=norm, name=name)

