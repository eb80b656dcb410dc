"""File-system operations of `tf.gfile` / `tf.io.gfile` on local paths and `file://` URIs.

Each function raises the tf.errors class TensorFlow raises for the same
failure (NotFoundError for a missing path, AlreadyExistsError when
`overwrite` is False and the target exists, FailedPreconditionError for a
directory where a file is expected, ...), with a message naming the path.
"""

import os
import shutil
import stat as _stat

from trainflow._src.gfile import paths
from trainflow._src.gfile.paths import path_str
from trainflow._src.framework import errors


class FileStatistics:
    """What `stat` returns: `length` (bytes), `mtime_nsec`, `is_directory`.

    `mtime_nsec` holds whole seconds times 1e9, as TensorFlow's local file
    system reports it; `mtime_nsecs` is an alias.
    """

    __slots__ = ("length", "mtime_nsec", "is_directory")

    def __init__(self, length=0, mtime_nsec=0, is_directory=False):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory

    @property
    def mtime_nsecs(self):
        """Alias of `mtime_nsec`."""
        return self.mtime_nsec

    def __repr__(self):
        return "FileStatistics(length=%d, mtime_nsec=%d, is_directory=%s)" % (
            self.length, self.mtime_nsec, self.is_directory)


def exists(path):
    """True if `path` exists (file or directory).

    Raises:
      UnimplementedError: for an unsupported URI scheme.
    """
    local = paths.local_path(path)
    return bool(local) and os.access(local, os.F_OK)


def isdir(path):
    """True if `path` is a directory; False for anything else, errors included."""
    try:
        local = paths.local_path(path)
    except errors.OpError:
        return False
    return os.path.isdir(local) if local else False


def listdir(path):
    """The names in directory `path` (sorted; no "." or "..").

    Raises:
      NotFoundError: if `path` is not a directory.
    """
    if not isdir(path):
        raise errors.NotFoundError(
            None, None, "Could not find directory %s" % paths.path_str(path))
    local = paths.local_path(path)
    try:
        return sorted(os.listdir(local))
    except OSError as e:
        raise paths.os_error(e, local) from None


def mkdir(path):
    """Creates directory `path`; its parent must exist. An existing path is left as is.

    Raises:
      NotFoundError: if the parent directory does not exist.
    """
    local = paths.local_path(path)
    if not local:
        return
    try:
        os.mkdir(local)
    except FileExistsError:
        pass
    except OSError as e:
        raise paths.os_error(e, local) from None


def makedirs(path):
    """Creates directory `path` and any missing parents; succeeds if it exists.

    Raises:
      FailedPreconditionError: "<p> is not a directory" if `path` or one of its
        parents is an existing non-directory `p`.
    """
    local = paths.local_path(path)
    if not local:
        return
    try:
        os.makedirs(local, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = _first_non_directory(local)
        raise errors.FailedPreconditionError(
            None, None, "%s is not a directory" % blocker) from None
    except OSError as e:
        raise paths.os_error(e, local) from None


def _first_non_directory(local):
    """The shortest prefix of `local` that exists and is not a directory."""
    parts = local.split("/")
    for i in range(1, len(parts) + 1):
        prefix = "/".join(parts[:i])
        if prefix and os.path.exists(prefix) and not os.path.isdir(prefix):
            return prefix
    return local


def remove(path):
    """Deletes the file `path`.

    Raises:
      NotFoundError: if it does not exist.
      FailedPreconditionError: if it is a directory.
    """
    local = paths.local_path(path)
    try:
        os.remove(local)
    except OSError as e:
        raise paths.os_error(e, local) from None


def rmtree(path):
    """Deletes `path` and, for a directory, everything under it.

    Raises:
      NotFoundError: "<path> not found" if `path` does not exist.
    """
    local = paths.local_path(path)
    if not local or not os.path.lexists(local):
        raise errors.NotFoundError(None, None, "%s not found" % local)
    try:
        if os.path.isdir(local) and not os.path.islink(local):
            shutil.rmtree(local)
        else:
            os.remove(local)
    except OSError as e:
        raise paths.os_error(e, e.filename or local) from None


def copy(src, dst, overwrite=False):
    """Copies the file `src` to `dst`.

    Args:
      src: the file to copy.
      dst: the new file's path (a file name, not a directory to copy into).
      overwrite: if False, an existing `dst` is an error.

    Raises:
      AlreadyExistsError: if `dst` exists and `overwrite` is False.
      NotFoundError: if `src` or `dst`'s directory does not exist.
      InvalidArgumentError: if `src` is a directory.
      FailedPreconditionError: if `dst` is a directory.
    """
    src_local = paths.local_path(src)
    dst_local = paths.local_path(dst)
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if os.path.isdir(src_local):
        raise errors.InvalidArgumentError(
            None, None, "%s; Is a directory (copy needs a file)" % src_local)
    try:
        if os.path.exists(dst_local) and os.path.samefile(src_local, dst_local):
            return
        with open(src_local, "rb") as fin:
            try:
                with open(dst_local, "wb") as fout:
                    shutil.copyfileobj(fin, fout, 1 << 20)
            except OSError as e:
                raise paths.os_error(e, dst_local) from None
    except OSError as e:
        raise paths.os_error(e, src_local) from None


def rename(src, dst, overwrite=False):
    """Renames (moves) the file or directory `src` to `dst`.

    Raises:
      AlreadyExistsError: if `dst` exists and `overwrite` is False.
      NotFoundError: if `src` does not exist.
      FailedPreconditionError: if the OS refuses, e.g. a file onto a directory
        or a directory onto a non-empty one.
    """
    src_local = paths.local_path(src)
    dst_local = paths.local_path(dst)
    if not overwrite and exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.rename(src_local, dst_local)
    except OSError as e:
        raise paths.os_error(e, src_local) from None


def stat(path):
    """Returns a FileStatistics for `path`.

    Raises:
      NotFoundError: if `path` does not exist.
    """
    local = paths.local_path(path)
    try:
        st = os.stat(local)
    except OSError as e:
        raise paths.os_error(e, local) from None
    return FileStatistics(length=st.st_size, mtime_nsec=int(st.st_mtime) * 1000000000,
                          is_directory=_stat.S_ISDIR(st.st_mode))


def join(path, *paths):
    """Joins path components; URIs (`scheme://...`) are joined with "/"."""
    import posixpath
    text = path_str(path)  # (`paths` is join's argument here)
    if "://" in text[1:]:
        return posixpath.join(text, *paths)
    return os.path.join(text, *paths)


def get_registered_schemes():
    """The URI schemes served: "" (plain local paths) and "file"."""
    return ["", "file"]


def walk(top, topdown=True, onerror=None):
    """Walks the directory tree under `top`, like `os.walk`.

    Args:
      top: the root directory.
      topdown: yield a directory before (True) or after (False) its subdirectories.
      onerror: called with the NotFoundError when `top` cannot be listed;
        without it such an error is ignored.

    Yields:
      (dirname, [subdirectory names], [file names]) tuples, names sorted.
      Symbolic links to directories are listed as subdirectories, but a link
      back to a directory already on the current path is not descended into.
    """
    top = paths.path_str(top)
    return _walk(top, topdown, onerror, ())


def _walk(top, topdown, onerror, ancestors):
    try:
        listing = listdir(top)
    except errors.NotFoundError as err:
        if onerror is not None:
            onerror(err)
        return
    subdirs, files = [], []
    for name in listing:
        (subdirs if isdir(_child(top, name)) else files).append(name)
    here = (top, subdirs, files)
    if topdown:
        yield here
    try:
        real = os.path.realpath(paths.local_path(top))
    except OSError:
        real = None
    ancestors = ancestors + (real,)
    for name in subdirs:
        child = _child(top, name)
        try:
            child_real = os.path.realpath(paths.local_path(child))
        except OSError:
            child_real = None
        if child_real is not None and child_real in ancestors:
            continue  # a symlink cycle
        yield from _walk(child, topdown, onerror, ancestors)
    if not topdown:
        yield here


def _child(parent, name):
    if name.startswith(os.sep):
        return join(parent, "") + name
    return join(parent, name)
