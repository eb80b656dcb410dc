"""ReadFile, WriteFile and MatchingFiles: `tf.read_file`, `tf.write_file`,
`tf.matching_files`."""
__all__ = ["read_file", "write_file", "matching_files"]

import glob
import os

import numpy as np

from trainflow._src.formats import zlib_stream
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape


def _path(value):
    v = np.asarray(value, dtype=object)
    if v.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"Input filename tensor must be scalar, but had shape: {list(v.shape)}")
    v = v[()]
    return v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v)


def _read_file_kernel(filename):
    path = _path(filename)
    with zlib_stream.open_file(path, "rb") as f:
        return np.asarray(f.read(), dtype=object)


def _write_file_kernel(filename, contents):
    path = _path(filename)
    data = np.asarray(contents, dtype=object)
    if data.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"Contents tensor must be scalar, but had shape: {list(data.shape)}")
    data = data[()]
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with zlib_stream.open_file(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else str(data).encode())


def _matching_files_kernel(pattern):
    patterns = np.asarray(pattern, dtype=object).reshape(-1)
    names = set()
    for p in patterns:
        p = p.decode("utf-8", "surrogateescape") if isinstance(p, bytes) else str(p)
        names.update(glob.glob(p, include_hidden=True))
    out = np.empty(len(names), dtype=object)
    out[:] = [n.encode("utf-8", "surrogateescape") for n in sorted(names)]
    return out


register_op("ReadFile", inputs=["filename: string"], outputs=["contents: string"],
            shape_fn=lambda op: [TensorShape(())], kernel=_read_file_kernel, stateful=True,
            host_only=True)
register_op("WriteFile", inputs=["filename: string", "contents: string"],
            shape_fn=lambda op: [], kernel=_write_file_kernel, stateful=True, host_only=True)
register_op("MatchingFiles", inputs=["pattern: string"], outputs=["filenames: string"],
            shape_fn=lambda op: [TensorShape([None])], kernel=_matching_files_kernel,
            stateful=True, host_only=True)
for _t in ("ReadFile", "WriteFile", "MatchingFiles"):
    NotDifferentiable(_t)


def read_file(filename, name=None):
    """A string tensor with the entire contents of the file `filename`."""
    return apply_op("ReadFile", filename=filename, name=name).outputs[0]


def write_file(filename, contents, name=None):
    """An op writing `contents` to `filename` (parent directories are created)."""
    return apply_op("WriteFile", filename=filename, contents=contents, name=name)


def matching_files(pattern, name=None):
    """A 1-D string tensor: the sorted files matching the glob `pattern` (or patterns)."""
    return apply_op("MatchingFiles", pattern=pattern, name=name).outputs[0]
