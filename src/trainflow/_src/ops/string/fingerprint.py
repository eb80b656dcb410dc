"""`tf.fingerprint`: the Fingerprint op, FarmHash Fingerprint64 of each row of a tensor as
8 little-endian bytes (TF's bytes: a string row is the fingerprint of its strings'
fingerprints, a single string its own)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.shape_util import with_rank_at_least
from trainflow._src.ops.string.string_hash import fingerprint64

__all__ = ["fingerprint"]

_METHODS = (b"farmhash64",)


def _le_bytes(value):
    return np.frombuffer(int(value).to_bytes(8, "little"), dtype=np.uint8)


def _as_bytes(s):
    return s if isinstance(s, bytes) else str(s).encode()


def _fingerprint_kernel(data, method):
    method = np.asarray(method).reshape(())[()]
    if _as_bytes(method) not in _METHODS:
        raise errors.InvalidArgumentError(
            None, None, "Unsupported fingerprint method: %s" % _as_bytes(method).decode())
    data = np.asarray(data)
    rows = data.shape[0]
    out = np.empty((rows, 8), dtype=np.uint8)
    row_size = data.size // rows if rows else 0
    if data.dtype == object or data.dtype.kind in "SU":
        flat = data.reshape(rows, row_size)
        for i in range(rows):
            row = [_as_bytes(s) for s in flat[i]]
            if data.ndim == 1:
                out[i] = _le_bytes(fingerprint64(row[0]))
            else:
                inner = b"".join(int(fingerprint64(s)).to_bytes(8, "little") for s in row)
                out[i] = _le_bytes(fingerprint64(inner))
        return out
    flat = np.ascontiguousarray(data).reshape(rows, row_size)
    for i in range(rows):
        out[i] = _le_bytes(fingerprint64(flat[i].tobytes()))
    return out


def _fingerprint_shape(op):
    data, method = op._inputs
    dims = data._shape._dims
    if dims is not None:
        with_rank_at_least(dims, 1)
    value = constant_value(method)
    if value is not None and _as_bytes(np.asarray(value).reshape(())[()]) not in _METHODS:
        raise ValueError("Unsupported method: %s"
                         % _as_bytes(np.asarray(value).reshape(())[()]).decode())
    return [TensorShape([None if dims is None else dims[0], 8])]


register_op("Fingerprint", inputs=["data: T", "method: string"],
            outputs=["fingerprint: uint8"], attrs=["T: type"], shape_fn=_fingerprint_shape,
            kernel=_fingerprint_kernel, host_only=True)
NotDifferentiable("Fingerprint")


def fingerprint(data, method="farmhash64", name=None):
    """FarmHash Fingerprint64 of each row of `data` (first dimension), as [rows, 8] uint8."""
    return apply_op("Fingerprint", name=name, data=data, method=method).outputs[0]
