"""Banded diagonals: MatrixDiagV3, MatrixDiagPartV3 and MatrixSetDiagV3 (what
`tf.linalg.diag`, `diag_part` and `set_diag` build in TensorFlow 2), with gradients.

`k` names one diagonal (0 main, > 0 above, < 0 below) or a band [low, high]; a
band is stored highest diagonal first, each padded to the band's longest length,
superdiagonals aligned by the first half of `align`, subdiagonals by the second.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.shape_util import UNKNOWN, dims_of, invalid_argument, shape_of
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.create import zeros_like

__all__ = ["matrix_diag", "matrix_diag_part", "matrix_set_diag"]

_ALIGN = 'align: {"LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT"} = "RIGHT_LEFT"'


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


def _band(k):
    k = [int(v) for v in np.asarray(k).reshape(-1)]
    if not 1 <= len(k) <= 2:
        raise invalid_argument(f"diag_index must have only one or two elements, received "
                               f"{len(k)} elements.")
    low, high = (k[0], k[0]) if len(k) == 1 else k
    if low > high:
        raise invalid_argument(f"lower_diag_index must be smaller than upper_diag_index, "
                               f"received lower_diag_index = {low} > upper_diag_index = {high}")
    return low, high


def _check_bounds(low, high, m, n, error):
    for which, d in (("lower", low), ("upper", high)):
        if not (-m < d < n or (d == 0 and (m == 0 or n == 0))):
            raise error(f"{which}_diag_index is out of bound: {d} for a {m} x {n} matrix")


def _diag_len(d, m, n):
    return min(m + min(d, 0), n - max(d, 0))


def _band_len(low, high, m, n):
    """The length of the longest diagonal in the band [low, high] of an m x n matrix."""
    return max(min(m + min(high, 0), n - max(low, 0)), 0)


def _cells(d, m, n, max_len, align):
    """(rows, cols, positions in the stored diagonal) of diagonal d of an m x n matrix."""
    length = max(_diag_len(d, m, n), 0)
    i = np.arange(length)
    sup_left, sub_left = (a == "LEFT" for a in _text(align).split("_"))
    left = (d >= 0 and sup_left) or (d <= 0 and sub_left)
    offset = 0 if left else max_len - length
    return i + max(-d, 0), i + max(d, 0), i + offset


def _matrix_diag_v3(diagonal, k, num_rows, num_cols, padding_value, *, align):
    diag = np.asarray(diagonal)
    low, high = _band(k)
    num_diags = high - low + 1
    if diag.ndim < (1 if num_diags == 1 else 2):
        raise invalid_argument(f"diagonal must be at least 1-dim, received shape: "
                               f"{list(diag.shape)}")
    if num_diags > 1 and diag.shape[-2] != num_diags:
        raise invalid_argument(f"The number of diagonals provided in the input does not "
                               f"match the lower_diag_index and upper_diag_index range: "
                               f"{diag.shape[-2]} vs {num_diags}")
    stored = diag[..., None, :] if num_diags == 1 else diag
    max_len = stored.shape[-1]
    m, n = int(num_rows), int(num_cols)
    min_m = max_len - min(high, 0)
    min_n = max_len + max(low, 0)
    if m == -1 and n == -1:  # a square matrix, as TensorFlow assumes
        m = n = max(min_m, min_n)
    elif m == -1:
        m = min_m
    elif n == -1:
        n = min_n
    if m < min_m or n < min_n:
        raise invalid_argument(f"The number of rows or columns is not consistent with the "
                               f"specified d_lower, d_upper, and diagonal: num_rows {m}, "
                               f"num_cols {n}")
    if _band_len(low, high, m, n) != max_len:
        raise invalid_argument("The number of rows and columns is not consistent with the "
                               "diagonal length")
    out = np.full(stored.shape[:-2] + (m, n), np.asarray(padding_value, diag.dtype),
                  dtype=diag.dtype)
    for j, d in enumerate(range(high, low - 1, -1)):
        rows, cols, pos = _cells(d, m, n, max_len, align)
        out[..., rows, cols] = stored[..., j, :][..., pos]
    return out


def _matrix_diag_part_v3(input, k, padding_value, *, align):  # noqa: A002 - TF's name
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: "
                               f"{list(x.shape)}")
    low, high = _band(k)
    m, n = x.shape[-2:]
    _check_bounds(low, high, m, n, invalid_argument)
    max_len = _band_len(low, high, m, n)
    out = np.full(x.shape[:-2] + (high - low + 1, max_len),
                  np.asarray(padding_value, x.dtype), dtype=x.dtype)
    for j, d in enumerate(range(high, low - 1, -1)):
        rows, cols, pos = _cells(d, m, n, max_len, align)
        out[..., j, pos] = x[..., rows, cols]
    return out[..., 0, :] if low == high else out


def _matrix_set_diag_v3(input, diagonal, k, *, align):  # noqa: A002
    x = np.array(input, copy=True)
    diag = np.asarray(diagonal)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: "
                               f"{list(x.shape)}")
    low, high = _band(k)
    m, n = x.shape[-2:]
    max_len = _band_len(low, high, m, n)
    stored = diag[..., None, :] if low == high else diag
    if stored.shape[-1] != max_len or stored.shape[:-2] != x.shape[:-2]:
        raise invalid_argument(f"diagonal must have shape {list(x.shape[:-2])} + "
                               f"{[high - low + 1] if low != high else []} + [{max_len}], "
                               f"got {list(diag.shape)}")
    for j, d in enumerate(range(high, low - 1, -1)):
        rows, cols, pos = _cells(d, m, n, max_len, align)
        x[..., rows, cols] = stored[..., j, :][..., pos]
    return x


def _static_band(op, index):
    value = constant_value(op.inputs[index])
    if value is None:
        return None
    try:
        return _band(value)
    except errors.InvalidArgumentError as e:
        raise ValueError(e.message) from None


def _diag_shape(op):
    band = _static_band(op, 1)
    d = dims_of(op.inputs[0])
    rows, cols = (constant_value(op.inputs[i]) for i in (2, 3))
    if band is None or d is None or rows is None or cols is None:
        return [UNKNOWN]
    low, high = band
    batch = d[:-1] if low == high else d[:-2]
    max_len = d[-1]
    m, n = int(rows), int(cols)
    if max_len is None and (m == -1 or n == -1):
        return [shape_of(batch + (None, None))]
    if m == -1 and n == -1:
        m = n = max(max_len - min(high, 0), max_len + max(low, 0))
    elif m == -1:
        m = max_len - min(high, 0)
    elif n == -1:
        n = max_len + max(low, 0)
    return [shape_of(batch + (m, n))]


def _diag_part_shape(op):
    band = _static_band(op, 1)
    x = dims_of(op.inputs[0])
    if band is None or x is None:
        return [UNKNOWN]
    low, high = band
    m, n = x[-2:]
    if m is None or n is None:
        return [shape_of(x[:-2] + ((None,) if low == high else (high - low + 1, None)))]
    _check_bounds(low, high, m, n, ValueError)
    max_len = _band_len(low, high, m, n)
    return [shape_of(x[:-2] + ((max_len,) if low == high else (high - low + 1, max_len)))]


register_op("MatrixDiagV3", inputs=["diagonal: T", "k: int32", "num_rows: int32",
                                    "num_cols: int32", "padding_value: T"],
            outputs=["output: T"], attrs=["T: type", _ALIGN], shape_fn=_diag_shape,
            kernel=_matrix_diag_v3)
register_op("MatrixDiagPartV3", inputs=["input: T", "k: int32", "padding_value: T"],
            outputs=["diagonal: T"], attrs=["T: type", _ALIGN], shape_fn=_diag_part_shape,
            kernel=_matrix_diag_part_v3)
register_op("MatrixSetDiagV3", inputs=["input: T", "diagonal: T", "k: int32"],
            outputs=["output: T"], attrs=["T: type", _ALIGN],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_matrix_set_diag_v3)


@RegisterGradient("MatrixDiagV3")
def _matrix_diag_v3_grad(op, grad):
    k = op.inputs[1]
    return (matrix_diag_part(grad, k=k, align=_text(op.get_attr("align"))),
            None, None, None, None)


@RegisterGradient("MatrixDiagPartV3")
def _matrix_diag_part_v3_grad(op, grad):
    x, k = op.inputs[:2]
    return (matrix_set_diag(zeros_like(x), grad, k=k, align=_text(op.get_attr("align"))),
            None, None)


@RegisterGradient("MatrixSetDiagV3")
def _matrix_set_diag_v3_grad(op, grad):
    _, diagonal, k = op.inputs
    align = _text(op.get_attr("align"))
    return (matrix_set_diag(grad, zeros_like(diagonal), k=k, align=align),
            matrix_diag_part(grad, k=k, align=align), None)


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
                align="RIGHT_LEFT"):
    """Batched matrices with `diagonal` on diagonal k (or the band k = [low, high]) and
    `padding_value` elsewhere (`MatrixDiagV3`; `tf.linalg.diag`)."""
    diagonal = convert_to_tensor(diagonal, name="diagonal")
    return apply_op("MatrixDiagV3", diagonal=diagonal, k=k, num_rows=num_rows,
                    num_cols=num_cols,
                    padding_value=convert_to_tensor(padding_value, dtype=diagonal.dtype),
                    align=align, name=name).outputs[0]


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0,  # noqa: A002
                     align="RIGHT_LEFT"):
    """Diagonal k (or the band k = [low, high]) of batched matrices (`MatrixDiagPartV3`;
    `tf.linalg.diag_part`)."""
    input = convert_to_tensor(input, name="input")
    return apply_op("MatrixDiagPartV3", input=input, k=k,
                    padding_value=convert_to_tensor(padding_value, dtype=input.dtype),
                    align=align, name=name).outputs[0]


def matrix_set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """`input` with diagonal k (or the band k) replaced by `diagonal` (`MatrixSetDiagV3`;
    `tf.linalg.set_diag`)."""
    return apply_op("MatrixSetDiagV3", input=input, diagonal=diagonal, k=k, align=align,
                    name=name).outputs[0]
