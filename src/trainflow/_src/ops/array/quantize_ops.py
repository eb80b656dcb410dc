"""`tf.quantize` / `tf.quantize_v2` / `tf.dequantize` / `tf.quantized_concat`: the QuantizeV2,
Dequantize and QuantizedConcat ops between float tensors and the quantized dtypes
(qint8, quint8, qint16, quint16, qint32), in TF's MIN_COMBINED, MIN_FIRST and SCALED
modes, with TF's float32 arithmetic (kernels/quantize_op.cc, dequantize_op.cc,
quantized_concat_op.cc, quantization_utils.h). No gradients, as in TF."""
import collections

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value

__all__ = ["dequantize", "quantize", "quantize_v2", "quantized_concat"]

_QTYPES = "{qint8, quint8, qint32, qint16, quint16}"
_BASE = {np.dtype(d.as_numpy_dtype): np.dtype(b) for d, b in (
    (dtypes.qint8, np.int8), (dtypes.quint8, np.uint8), (dtypes.qint16, np.int16),
    (dtypes.quint16, np.uint16), (dtypes.qint32, np.int32))}
_F = np.float32
_QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
_Concat = collections.namedtuple("QuantizedConcat", ["output", "output_min", "output_max"])


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _raw(x):
    """The integers of a quantized array."""
    x = np.asarray(x)
    return np.ascontiguousarray(x).view(_BASE[x.dtype]) if x.dtype in _BASE else x


def _quantized(values, qdtype):
    base = _BASE[np.dtype(qdtype)]
    return np.ascontiguousarray(values).astype(base).view(qdtype)


def _limits(base):
    info = np.iinfo(base)
    return int(info.min), int(info.max)


def _round_away(x):
    """Round half away from zero, exact for float32 values (x + 0.5 in float64)."""
    x = np.asarray(x, np.float64)
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(_F)


def _ftz(value):
    """TF runs kernels with denormals flushed to zero."""
    return _F(0) if abs(value) < np.finfo(_F).tiny else _F(value)


def _slices(x, axis, lo, hi):
    """(slices of x along axis, their min and max values): one slice when axis is -1."""
    lo, hi = np.asarray(lo, _F), np.asarray(hi, _F)
    if axis == -1:
        if lo.size != 1 or hi.size != 1:
            raise _invalid("min_range and max_range must be scalars when axis is -1")
        return [(Ellipsis, lo.reshape(()), hi.reshape(()))]
    if not 0 <= axis < x.ndim:
        raise _invalid(f"Axis must be less than input dimension({x.ndim}), got {axis}")
    n = x.shape[axis]
    if lo.shape != (n,) or hi.shape != (n,):
        raise _invalid(f"min_range and max_range must be 1-D of size {n}")
    index = [slice(None)] * x.ndim
    out = []
    for i in range(n):
        index[axis] = i
        out.append((tuple(index), lo[i], hi[i]))
    return out


def _first_quantize(x, lo, hi, base):
    """quantization_utils' QUANTIZE_WITH_EIGEN (float32 arithmetic)."""
    qmin, qmax = _limits(base)
    steps = float(1 << (8 * base.itemsize))
    scale = _F(0) if lo == hi else _F((steps - 1.0) / (float(hi) - float(lo)))
    lo_scaled = _round_away(_F(lo * scale))
    q = _round_away(np.asarray(x, _F) * scale) - _F(lo_scaled - _F(qmin))
    q = np.clip(q, max(_F(qmin), _F(-2.147483648e9)), min(_F(qmax), _F(2.147483520e9)))
    return q.astype(np.int64)


def _quantize_slice(x, lo, hi, base, mode, round_mode, narrow_range, ensure_minimum_range):
    if hi < lo:
        raise _invalid("input_max_range must be larger than input_min_range.")
    qmin, qmax = _limits(base)
    lo = _F(min(_F(0), lo))
    eps = _F(max(_F(1), max(abs(lo), abs(hi))) * _F(ensure_minimum_range))
    hi = _F(max(_F(0), max(hi, _F(lo + eps))))
    if mode == "MIN_FIRST":
        return _first_quantize(x, lo, hi, base), lo, hi
    if mode == "SCALED":
        low = qmin + (1 if narrow_range else 0)
        from_min = _F(low / lo) if low * lo > 0 else np.finfo(_F).max
        from_max = _F(qmax / hi) if qmax * hi > 0 else np.finfo(_F).max
        scale = _F(min(from_min, from_max))
        lo, hi = _ftz(_F(low) / scale), _ftz(_F(qmax) / scale)
        y = np.clip(x, lo, hi) * scale
        q = np.rint(y) if round_mode == "HALF_TO_EVEN" else _round_away(y)
        return q.astype(np.int64), lo, hi
    scale = _F((float(qmax) - float(qmin)) / float(_F(hi - lo)))
    shifted = (np.clip(x, lo, hi) - lo) * scale
    half = _F((qmax - qmin + 1) / 2.0) if qmin < 0 else _F(0)
    return _round_away(shifted - half).astype(np.int64), lo, hi


def _quantize_kernel(input, min_range, max_range, *, T, mode, round_mode,  # noqa: A002, N803
                     narrow_range, axis, ensure_minimum_range):
    x = np.asarray(input, _F)
    mode, round_mode = _text(mode), _text(round_mode)
    qdtype = np.dtype(T.as_numpy_dtype)
    base = _BASE[qdtype]
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise _invalid(f"Round mode 'HALF_TO_EVEN' is only supported for mode 'SCALED', "
                       f"but mode is '{mode}'.")
    if axis != -1 and mode == "MIN_FIRST":
        raise errors.UnimplementedError(
            None, None, "MIN_FIRST mode is not implemented for Quantize with axis != -1.")
    out = np.zeros(x.shape, np.int64)
    mins, maxs = [], []
    for index, lo, hi in _slices(x, axis, min_range, max_range):
        q, lo, hi = _quantize_slice(x[index], lo, hi, base, mode, round_mode, narrow_range,
                                    ensure_minimum_range)
        out[index] = q
        mins.append(lo)
        maxs.append(hi)
    shape = () if axis == -1 else (len(mins),)
    return (_quantized(out, qdtype), np.array(mins, _F).reshape(shape),
            np.array(maxs, _F).reshape(shape))


def _first_dequantize(q, lo, hi, base):
    """quantization_utils' DEQUANTIZE_WITH_EIGEN (float32 arithmetic)."""
    steps = float(1 << (8 * base.itemsize))
    scale = _F((float(hi) - float(lo)) / (steps - 1.0))
    rounded = lo if lo == hi else _F(_round_away(_F(lo) / scale) * scale)
    return _F(rounded - _F(_limits(base)[0]) * scale) + q.astype(_F) * scale


def _dequantize_slice(q, lo, hi, base, mode, narrow_range):
    qmin, qmax = _limits(base)
    if mode == "MIN_COMBINED":
        half = _F((float(qmax) - qmin + 1) / 2.0) if qmin < 0 else _F(0)
        scale = _F(float(_F(hi - lo)) / float(_F(float(qmax) - qmin)))
        return (q.astype(_F) + half) * scale + lo
    if mode == "MIN_FIRST":
        return _first_dequantize(q, lo, hi, base)
    low = qmin + (1 if narrow_range else 0)
    scale = _F(hi / _F(qmax)) if qmin == 0 else max(_F(lo / _F(low)), _F(hi / _F(qmax)))
    return q.astype(_F) * _F(scale)


def _dequantize_kernel(input, min_range, max_range, *, T, mode, narrow_range, axis,  # noqa: A002, N803
                       dtype):
    q = _raw(input)
    mode = _text(mode)
    base = q.dtype
    out = np.zeros(q.shape, _F)
    for index, lo, hi in _slices(q, axis, min_range, max_range):
        if axis != -1 and mode == "MIN_FIRST":
            raise errors.UnimplementedError(
                None, None, "MIN_FIRST mode is not implemented for Dequantize with axis != -1.")
        out[index] = _dequantize_slice(q[index], lo, hi, base, mode, narrow_range)
    return out.astype(dtype.as_numpy_dtype)


def _concat_kernel(concat_dim, values, mins, maxes, *, N, T):  # noqa: N803
    if T not in (dtypes.quint8, dtypes.qint32):
        raise _invalid("No OpKernel was registered to support Op 'QuantizedConcat' with "
                       f"these attrs: [T=DT_{T.name.upper()}, N={N}]")
    qdtype = np.dtype(T.as_numpy_dtype)
    raws = [_raw(v) for v in values]
    base = _BASE[qdtype]
    for k, (lo, hi) in enumerate(zip(mins, maxes)):
        if np.size(lo) != 1:
            raise _invalid(f"input_mins[{k}] must be a scalar")
        if np.size(hi) != 1:
            raise _invalid(f"input_maxes[{k}] must be a scalar")
    lo_all = min(_F(0), min(_F(np.ravel(m)[0]) for m in mins))
    hi_all = max(_F(np.ravel(m)[0]) for m in maxes)
    if np.iinfo(base).min < 0:
        largest = max(abs(lo_all), abs(hi_all))
        lo_all, hi_all = _F(-largest), _F(largest)
    axis = int(concat_dim)
    rank = raws[0].ndim
    if not 0 <= axis < rank:
        raise _invalid("ConcatOp : Expected concatenating dimensions in the range "
                       f"[0, {rank}), but got {axis}")
    parts = []
    for q, lo, hi in zip(raws, mins, maxes):
        lo, hi = _F(np.ravel(lo)[0]), _F(np.ravel(hi)[0])
        if q.ndim != rank:
            raise _invalid("ConcatOp : Ranks of all input tensors should match")
        if (lo, hi) == (lo_all, hi_all):
            parts.append(q.astype(np.int64))
        else:
            value = _first_dequantize(q, lo, hi, base)
            parts.append(_first_quantize(value, lo_all, hi_all, base))
    try:
        out = np.concatenate(parts, axis)
    except ValueError:
        raise _invalid("ConcatOp : Dimensions of inputs should match") from None
    return _quantized(out, qdtype), _F(lo_all), _F(hi_all)


def _quantize_shape(op):
    axis = op._attrs["axis"]
    shape = op._inputs[0]._shape
    if axis < -1:
        raise ValueError(f"axis should be at least -1, got {axis}")
    minmax = TensorShape([]) if axis == -1 else TensorShape(
        [None if shape._dims is None or axis >= len(shape._dims) else shape._dims[axis]])
    for t in op._inputs[1:3]:
        if axis == -1:
            t._shape.with_rank(0)
        elif minmax._dims[0] is not None and t._shape._dims is not None:
            t._shape.with_rank(1)
            if t._shape._dims[0] not in (None, minmax._dims[0]):
                raise ValueError(f"Dimensions must be equal, but are {t._shape._dims[0]} and "
                                 f"{minmax._dims[0]}")
    return [shape] + [minmax] * (len(op.outputs) - 1)


def _concat_shape(op):
    n = op._attrs["N"]
    values = op._inputs[1:1 + n]
    dim = constant_value(op._inputs[0])
    shapes = [v._shape for v in values]
    if dim is None or int(dim) < 0 or any(s._dims is None for s in shapes):
        rank = next((len(s._dims) for s in shapes if s._dims is not None), None)
        out = TensorShape(None if rank is None else [None] * rank)
    else:
        dim = int(dim)
        total, merged = 0, shapes[0]
        for s in shapes:
            d = s._dims[dim]
            total = None if total is None or d is None else total + d
            merged = merged.merge_with(TensorShape(
                [None if i == dim else x for i, x in enumerate(s._dims)]))
        out = TensorShape([total if i == dim else x for i, x in enumerate(merged._dims)])
    return [out, TensorShape([]), TensorShape([])]


_MODES = "mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'"
register_op("QuantizeV2", inputs=["input: float", "min_range: float", "max_range: float"],
            outputs=["output: T", "output_min: float", "output_max: float"],
            attrs=[f"T: {_QTYPES}", _MODES,
                   "round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = "
                   "'HALF_AWAY_FROM_ZERO'", "narrow_range: bool = false", "axis: int = -1",
                   "ensure_minimum_range: float = 0.01"],
            shape_fn=_quantize_shape, kernel=_quantize_kernel)
register_op("Dequantize", inputs=["input: T", "min_range: float", "max_range: float"],
            outputs=["output: dtype"],
            attrs=[f"T: {_QTYPES}", _MODES, "narrow_range: bool = false", "axis: int = -1",
                   "dtype: {bfloat16, float} = DT_FLOAT"],
            shape_fn=_quantize_shape, kernel=_dequantize_kernel)
register_op("QuantizedConcat", inputs=["concat_dim: int32", "values: N * T",
                                       "input_mins: N * float", "input_maxes: N * float"],
            outputs=["output: T", "output_min: float", "output_max: float"],
            attrs=["N: int >= 2", "T: type"], shape_fn=_concat_shape, kernel=_concat_kernel)


def _axis(input, axis):  # noqa: A002
    if axis is None:
        return -1
    if axis < 0:
        if input.shape.ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= input.shape.ndims
    return axis


def quantize_v2(input, min_range, max_range, T, mode="MIN_COMBINED", name=None,  # noqa: A002, N803
                round_mode="HALF_AWAY_FROM_ZERO", narrow_range=False, axis=None,
                ensure_minimum_range=0.01):
    """(output, output_min, output_max): `input` quantized to dtype T over
    [min_range, max_range] (the QuantizeV2 op)."""
    op = apply_op("QuantizeV2", input=input, min_range=min_range, max_range=max_range, T=T,
                  mode=mode, round_mode=round_mode, narrow_range=narrow_range,
                  axis=_axis(input, axis), ensure_minimum_range=ensure_minimum_range,
                  name=name)
    return _QuantizeV2(*op.outputs)


def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",  # noqa: A002, N803
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None,
             ensure_minimum_range=0.01):
    """`tf.quantization.quantize`: quantize_v2 with its arguments in TF's other order."""
    return quantize_v2(input, min_range, max_range, T, mode=mode, round_mode=round_mode,
                       name=name, narrow_range=narrow_range, axis=axis,
                       ensure_minimum_range=ensure_minimum_range)


def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None, axis=None,  # noqa: A002
               narrow_range=False, dtype=dtypes.float32):
    """Floats of a quantized tensor over [min_range, max_range] (the Dequantize op)."""
    return apply_op("Dequantize", input=input, min_range=min_range, max_range=max_range,
                    mode=mode, narrow_range=narrow_range, axis=_axis(input, axis),
                    dtype=dtype, name=name).outputs[0]


def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None):
    """(output, output_min, output_max): quantized tensors joined along concat_dim,
    requantized to a range covering all inputs (the QuantizedConcat op)."""
    op = apply_op("QuantizedConcat", concat_dim=concat_dim, values=values,
                  input_mins=input_mins, input_maxes=input_maxes, name=name)
    return _Concat(*op.outputs)
