"""Text summaries of tensor values, as TensorFlow's `Tensor::SummarizeValue` writes
them: the v1 form used by the Assert and Print ops ("[[1 2][3...]...]") and the
v2 form used by StringFormat / `tf.print` ("[[1 2 ... 5 6]\\n [...]]").

Floats print with 6 (float32) or 15 (float64) significant digits, or 9 / 17 when
that is needed to give the value back; half and bfloat16 print as float32.
"""
import numpy as np

_FLOAT32_LIKE = ("float16", "bfloat16", "float32")


_ESCAPES = {0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t", 0x22: b'\\"', 0x27: b"\\'",
            0x5C: b"\\\\"}


def _escape(raw):
    """C-style escaping that leaves UTF-8 sequences alone (absl::Utf8SafeCEscape)."""
    out = bytearray()
    for b in raw:
        esc = _ESCAPES.get(b)
        if esc is not None:
            out += esc
        elif b < 0x20 or b == 0x7F:
            out += b"\\%03o" % b
        else:
            out.append(b)
    return out.decode("utf-8", errors="backslashreplace")


def _format_float(value, digits, wide_digits, parse):
    if np.isnan(value):
        return "-nan" if np.signbit(value) else "nan"
    if np.isinf(value):
        return "-inf" if value < 0 else "inf"
    text = "%.*g" % (digits, value)
    if parse(text) != value:
        text = "%.*g" % (wide_digits, value)
    return text


def _element_formatter(dtype, print_v2):
    """A function formatting one element of an array of `dtype`, or None for dtypes
    TensorFlow prints as "?"."""
    name = dtype.name
    if dtype == np.bool_:
        return lambda v: "1" if v else "0"
    if name in _FLOAT32_LIKE:
        return lambda v: _format_float(np.float32(v), 6, 9, np.float32)
    if name == "float64":
        return lambda v: _format_float(float(v), 15, 17, float)
    if dtype.kind in "iu":
        return lambda v: str(int(v))
    if dtype == np.object_ or dtype.kind == "S":
        if print_v2:
            return lambda v: '"' + _as_bytes(v).decode("utf-8", errors="backslashreplace") + '"'
        return lambda v: _escape(_as_bytes(v))
    return None


def _as_bytes(v):
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    return bytes(v)


def _print_one_dim(dim, shape, limit, flat, index, out, fmt):
    """v1 layout: nested brackets, no separators between rows, "..." at the cut."""
    if index[0] >= limit:
        return
    count = shape[dim]
    if dim == len(shape) - 1:
        for i in range(count):
            if index[0] >= limit:
                if dim != 0:
                    out.append("...")
                return
            if i > 0:
                out.append(" ")
            out.append(fmt(flat[index[0]]))
            index[0] += 1
        return
    for _ in range(count):
        opened = False
        if index[0] < limit:
            out.append("[")
            opened = True
        _print_one_dim(dim + 1, shape, limit, flat, index, out, fmt)
        if index[0] < limit or opened:
            out.append("]")


def _dim_spacing(dim, ndims, out):
    if dim == ndims - 1:
        out.append(" ")
        return
    out.append("\n" * (ndims - dim - 1))
    out.append(" " * (dim + 1))


def _print_one_dim_v2(dim, shape, ends, flat, start, out, fmt):
    """v2 layout: NumPy-like rows with the first and last `ends` items of each dim."""
    ndims = len(shape)
    if dim == ndims:
        out.append(fmt(flat[start]))
        return
    out.append("[")
    count = shape[dim]
    start_of_end = max(ends, count - ends)
    per_item = 1
    for d in shape[dim + 1:]:
        per_item *= d
    for i in range(min(ends, count)):
        if i > 0:
            _dim_spacing(dim, ndims, out)
        _print_one_dim_v2(dim + 1, shape, ends, flat, start + per_item * i, out, fmt)
    if count > 2 * ends:
        _dim_spacing(dim, ndims, out)
        out.append("...")
    for i in range(start_of_end, count):
        _dim_spacing(dim, ndims, out)
        _print_one_dim_v2(dim + 1, shape, ends, flat, start + per_item * i, out, fmt)
    out.append("]")


def summarize_value(value, max_entries, print_v2=False):
    """The text TensorFlow prints for `value` showing at most `max_entries` elements
    (all of them when `max_entries` < 0).

    Args:
      value: an ndarray (object arrays hold bytes for DT_STRING) or scalar.
      max_entries: the op's `summarize` attr.
      print_v2: use the `tf.print` layout instead of the Assert/Print one.

    Returns:
      a str.
    """
    arr = np.asarray(value)
    num = arr.size
    if max_entries < 0:
        max_entries = num
    limit = min(max_entries, num)
    fmt = _element_formatter(arr.dtype, print_v2)
    if fmt is None:
        text = " ".join("?" for _ in range(limit))
        if max_entries < num:
            text += "..."
        return f"[{text}]" if print_v2 and arr.ndim > 0 else text
    if arr.dtype == np.bool_ and limit == 0:
        return ""
    flat = arr.reshape(-1)
    if arr.ndim == 0:
        text = " ".join(fmt(flat[i]) for i in range(limit))
        return text + "..." if num > limit else text
    out = []
    if print_v2:
        _print_one_dim_v2(0, arr.shape, limit, flat, 0, out, fmt)
        return "".join(out)
    _print_one_dim(0, arr.shape, limit, flat, [0], out, fmt)
    if num > limit:
        out.append("...")
    return "".join(out)
