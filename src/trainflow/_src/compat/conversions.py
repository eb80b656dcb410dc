"""`tf.compat`'s helpers: text/bytes/path conversions, type tuples and the
forward-compatibility checks."""
import contextlib as _contextlib
import numbers as _numbers

import numpy as _np

__all__ = [
    "as_bytes", "as_text", "as_str", "as_str_any", "path_to_str", "path_to_bytes",
    "bytes_or_text_types", "integral_types", "real_types", "complex_types",
    "forward_compatible", "forward_compatibility_horizon",
]

bytes_or_text_types = (bytes, str)
integral_types = (_numbers.Integral, _np.integer)
real_types = (_numbers.Real, _np.integer, _np.floating)
complex_types = (_numbers.Complex, _np.number)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """Converts bytes, bytearray or str to bytes (str is encoded with `encoding`).

    Raises:
      TypeError: for any other type.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


def as_text(bytes_or_text, encoding="utf-8"):
    """Converts bytes or str to str (bytes are decoded with `encoding`).

    Raises:
      TypeError: for any other type.
      UnicodeDecodeError: if bytes do not decode.
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


as_str = as_text


def as_str_any(value, encoding="utf-8"):
    """`str(value)`, except that bytes are decoded with `encoding`."""
    if isinstance(value, bytes):
        return as_text(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """Returns an `os.PathLike` as str; any other value unchanged."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


def path_to_bytes(path):
    """Returns a path (str, bytes or `os.PathLike`) as bytes.

    Raises:
      TypeError: if `path` is not a string or path-like object.
    """
    if hasattr(path, "__fspath__"):
        path = path.__fspath__()
    return as_bytes(path)


def forward_compatible(year, month, day):
    """Whether the runtime accepts graphs from after (year, month, day).

    trainflow's kernels and file formats are not tied to a build date, so
    this is always True.
    """
    del year, month, day
    return True


@_contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Context manager kept for API compatibility; `forward_compatible` stays True inside."""
    del year, month, day
    yield
