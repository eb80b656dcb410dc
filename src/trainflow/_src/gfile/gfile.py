"""`GFile`, TensorFlow's file object for local files.

The file is opened lazily (a file opened for writing appears at the first write or `tell`),
modes are r, w, a, r+, w+, a+ with an optional b, text mode decodes UTF-8 without newline
translation, and every failure is a tf.errors exception naming the path. Paths may be str,
bytes, `os.PathLike` or `file://` URIs; other schemes raise UnimplementedError.
"""

import os

from trainflow._src.framework import errors
from trainflow._src.gfile import paths
from trainflow._src.gfile.file_ops import stat

_MODES = ("r", "w", "a", "r+", "w+", "a+")


def _to_bytes(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError("Expected binary or unicode string, got %r" % (value,))


class GFile:
    """A file object on the local file system, with TensorFlow's GFile semantics.

    Args:
      name: the path (str, bytes, path-like or `file://` URI).
      mode: "r", "w", "a", "r+", "w+" or "a+", plus "b" for bytes. Writing in
        a mode other than "a"/"a+" truncates the file at the first write.

    Raises:
      InvalidArgumentError: for an unknown mode. Errors about the path itself
        (NotFoundError, FailedPreconditionError for a directory,
        UnimplementedError for a scheme) come at the first read or write.
    """

    def __init__(self, name, mode="r"):
        self._name = name
        self._mode = mode
        self._binary = "b" in mode
        plain = mode.replace("b", "")
        if plain not in _MODES:
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._readable = plain in ("r", "r+", "a+", "w+")
        self._writable = plain in ("a", "w", "r+", "a+", "w+")
        self._append = plain.startswith("a")
        self._reader = None
        self._writer = None

    @property
    def name(self):
        """The path this file was opened with."""
        return self._name

    @property
    def mode(self):
        """The mode this file was opened with."""
        return self._mode

    def _local(self):
        return paths.local_path(self._name)

    def _read_handle(self):
        if self._reader is None:
            if not self._readable:
                raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
            local = self._local()
            try:
                self._reader = open(local, "rb")
            except OSError as e:
                raise paths.os_error(e, local) from None
        return self._reader

    def _write_handle(self):
        if self._writer is None:
            if not self._writable:
                raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
            local = self._local()
            try:
                self._writer = open(local, "ab" if self._append else "wb")
            except OSError as e:
                raise paths.os_error(e, local) from None
        return self._writer

    def _decode(self, data):
        return data if self._binary else data.decode("utf-8")

    def size(self):
        """The file's size in bytes (data not yet flushed is not counted)."""
        return stat(self._name).length

    def write(self, file_content):
        """Writes str (as UTF-8) or bytes at the end of what was written so far.

        Raises:
          TypeError: if `file_content` is not str or bytes.
          PermissionDeniedError: if the file is not open for writing.
        """
        data = _to_bytes(file_content)
        handle = self._write_handle()
        try:
            handle.write(data)
        except OSError as e:
            raise paths.os_error(e, self._local()) from None

    def read(self, n=-1):
        """Reads `n` bytes (all that is left for -1) from the current position.

        Returns:
          bytes in binary mode, str in text mode; empty at end of file.

        Raises:
          InvalidArgumentError: for a negative `n` other than -1.
          PermissionDeniedError: if the file is not open for reading.
          NotFoundError: if the file does not exist.
        """
        if n is None:
            n = -1
        if n < -1:
            raise errors.InvalidArgumentError(
                None, None, "Can't read a negative number of bytes: %d" % n)
        handle = self._read_handle()
        try:
            data = handle.read() if n == -1 else handle.read(n)
        except OSError as e:
            raise paths.os_error(e, self._local()) from None
        return self._decode(data)

    def readline(self):
        """Reads the next line, keeping its "\\n"; empty at end of file."""
        handle = self._read_handle()
        try:
            return self._decode(handle.readline())
        except OSError as e:
            raise paths.os_error(e, self._local()) from None

    def readlines(self):
        """Reads all remaining lines into a list."""
        lines = []
        while True:
            line = self.readline()
            if not line:
                return lines
            lines.append(line)

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    next = __next__

    def seek(self, offset=None, whence=0, position=None):
        """Moves the read position.

        Args:
          offset: bytes relative to `whence`.
          whence: 0 start of file, 1 current position, 2 end of file.
          position: deprecated name of `offset`.

        Raises:
          TypeError: if neither or both of offset and position are given.
          InvalidArgumentError: for a bad `whence` or a negative target.
          OutOfRangeError: for a target past the end (the position is left
            at the end).
        """
        handle = self._read_handle()
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        if position is not None:
            offset = position
        size = os.fstat(handle.fileno()).st_size
        if whence == 1:
            offset += handle.tell()
        elif whence == 2:
            offset += size
        elif whence != 0:
            raise errors.InvalidArgumentError(
                None, None,
                "Invalid whence argument: {}. Valid values are 0, 1, or 2.".format(whence))
        if offset < 0:
            raise errors.InvalidArgumentError(
                None, None, "Seeking to a negative position: %d" % offset)
        if offset > size:
            handle.seek(size)
            raise errors.OutOfRangeError(None, None, "reached end of file")
        handle.seek(offset)

    def tell(self):
        """The read position, or for a write-only file the write position."""
        if self._readable:
            return self._read_handle().tell()
        return self._write_handle().tell()

    def seekable(self):
        """True: GFile supports seek() and tell()."""
        return True

    def flush(self):
        """Pushes written data to the operating system."""
        if self._writer is not None:
            try:
                self._writer.flush()
            except OSError as e:
                raise paths.os_error(e, self._local()) from None

    def close(self):
        """Flushes and closes the file; reading again starts over from the beginning."""
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except OSError as e:
                raise paths.os_error(e, self._local()) from None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()

    def __repr__(self):
        return "<trainflow.gfile.GFile name=%r mode=%r>" % (self._name, self._mode)


class FastGFile(GFile):
    """Deprecated TF1 alias of GFile (same behaviour)."""
