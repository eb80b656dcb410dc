"""Path handling shared by the gfile modules: URI schemes and OS errors as tf.errors.

Only the local file system is served: plain paths and `file://` URIs.
Any other scheme (`gs://`, `s3://`, `hdfs://` ...) raises UnimplementedError
naming the scheme, as TensorFlow does for a scheme it has no file system for.
"""

import errno as _errno
import os
import re

from trainflow._src.framework import errors

_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9.]*)://")

# errno -> canonical error code, following TensorFlow's table for POSIX errors.
_ERRNO_CODES = {}


def _register(code, names):
    for name in names.split():
        number = getattr(_errno, name, None)
        if number is not None:
            _ERRNO_CODES.setdefault(number, code)


_register(errors.INVALID_ARGUMENT, "EINVAL ENAMETOOLONG E2BIG EDESTADDRREQ EDOM EFAULT EILSEQ "
                                   "ENOPROTOOPT ENOSTR ENOTSOCK ENOTTY EPROTOTYPE ESPIPE")
_register(errors.DEADLINE_EXCEEDED, "ETIMEDOUT ETIME")
_register(errors.NOT_FOUND, "ENODEV ENOENT ENXIO ESRCH")
_register(errors.ALREADY_EXISTS, "EEXIST EADDRNOTAVAIL EALREADY")
_register(errors.PERMISSION_DENIED, "EPERM EACCES EROFS")
_register(errors.FAILED_PRECONDITION, "ENOTEMPTY EISDIR ENOTDIR EADDRINUSE EBADF EBUSY ECHILD "
                                      "EISCONN ENOTBLK ENOTCONN EPIPE ESHUTDOWN ETXTBSY")
_register(errors.RESOURCE_EXHAUSTED, "ENOSPC EDQUOT EMFILE EMLINK ENFILE ENOBUFS ENODATA ENOMEM "
                                     "ENOSR EUSERS")
_register(errors.OUT_OF_RANGE, "EFBIG EOVERFLOW ERANGE")
_register(errors.UNIMPLEMENTED, "ENOSYS ENOTSUP EAFNOSUPPORT EPFNOSUPPORT EPROTONOSUPPORT "
                                "ESOCKTNOSUPPORT EXDEV")
_register(errors.UNAVAILABLE, "EAGAIN ECONNREFUSED ECONNABORTED ECONNRESET EINTR EHOSTDOWN "
                              "EHOSTUNREACH ENETDOWN ENETRESET ENETUNREACH ENOLCK ENOLINK ENONET")
_register(errors.ABORTED, "EDEADLK ESTALE")
_register(errors.CANCELLED, "ECANCELED")


def path_str(path):
    """Returns a path given as str, bytes or `os.PathLike` as str.

    Raises:
      TypeError: for any other type.
    """
    if hasattr(path, "__fspath__"):
        path = path.__fspath__()
    if isinstance(path, str):
        return path
    if isinstance(path, (bytes, bytearray)):
        return bytes(path).decode("utf-8")
    raise TypeError("Expected binary or unicode string, got %r" % (path,))


def split_uri(path):
    """Splits a path into (uri_prefix, local_path).

    `uri_prefix` is "" for a plain path and "file://<host>" for a file URI.

    Raises:
      UnimplementedError: for a scheme other than `file`.
    """
    text = path_str(path)
    match = _SCHEME_RE.match(text)
    if match is None:
        return "", text
    scheme = match.group(1)
    if scheme != "file":
        raise errors.UnimplementedError(
            None, None, "File system scheme '%s' not implemented (file: '%s')" % (scheme, text))
    rest = text[match.end():]
    slash = rest.find("/")
    if slash < 0:
        return text, ""
    return text[:match.end() + slash], rest[slash:]


def local_path(path):
    """The local file-system path for `path` (plain path or `file://` URI).

    Raises:
      UnimplementedError: for a scheme other than `file`.
      TypeError: if `path` is not a string or path-like object.
    """
    return split_uri(path)[1]


def os_error(exc, path):
    """Converts an OSError about `path` into the matching tf.errors class.

    The message is "<path>; <strerror>", as TensorFlow words it.
    """
    number = exc.errno
    code = _ERRNO_CODES.get(number, errors.UNKNOWN)
    reason = os.strerror(number) if number is not None else str(exc)
    cls = errors.exception_type_from_error_code(code)
    return cls(None, None, "%s; %s" % (path, reason))
