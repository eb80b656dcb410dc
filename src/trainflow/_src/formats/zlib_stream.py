"""Byte streams under TFRecord files: plain files, and ZLIB / GZIP compressed ones.

A reading stream hands out its (decompressed) bytes in chunks through
`read(n)`; a writing sink takes bytes through `write(data)`. Both use the
zlib library with the parameters TensorFlow's C++ record I/O uses (memLevel 9,
default level and strategy; window bits 15, plus 16 for the gzip wrapper), so
compressed output equals TF's byte for byte on the same zlib.
"""
import zlib

from trainflow._src.framework import errors

# What TF's readers say when the data ends inside a record.
PLAIN_EOF_REASON = "Read less bytes than requested"
ZLIB_EOF_REASON = "EOF reached"

_GZIP_WBITS = zlib.MAX_WBITS + 16
_INPUT_BUFFER = 256 << 10


def open_file(path, mode, buffering=-1):
    """Opens `path`, turning OSErrors into TF's error classes with TF's message.

    Raises:
      NotFoundError, PermissionDeniedError, FailedPreconditionError.
    """
    try:
        return open(path, mode, buffering=buffering)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except NotADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Not a directory") from None
    except OSError as e:
        raise errors.UnknownError(None, None, f"{path}; {e.strerror or e}") from None


class PlainSource:
    """Reads an uncompressed file."""

    eof_reason = PLAIN_EOF_REASON

    def __init__(self, file):
        self._file = file

    def read(self, n):
        """Returns up to `n` bytes; fewer only at end of file."""
        return self._file.read(n)


class ZlibSource:
    """Reads the decompressed bytes of a ZLIB or GZIP file.

    Concatenated gzip members are read one after another, as zlib readers do.
    """

    eof_reason = ZLIB_EOF_REASON

    def __init__(self, file, path, gzip, window_bits=None, chunk=1 << 18):
        self._file = file
        self._path = path
        self._wbits = window_bits or (_GZIP_WBITS if gzip else zlib.MAX_WBITS)
        self._inflate = zlib.decompressobj(self._wbits)
        self._chunk = chunk
        self._pending = b""   # compressed bytes not yet given to zlib
        self._read = 0        # compressed bytes read from the file so far
        self._done = False

    def read(self, n):
        """Returns up to `n` decompressed bytes; fewer only at the end of the data.

        Raises:
          DataLossError: if the compressed data is corrupt.
        """
        out = []
        have = 0
        while have < n and not self._done:
            if not self._pending:
                self._pending = self._file.read(self._chunk)
                self._read += len(self._pending)
                if not self._pending:
                    self._done = True   # input ended (maybe mid-stream: a truncated file)
                    break
            try:
                data = self._inflate.decompress(self._pending, n - have)
            except zlib.error as e:
                raise errors.DataLossError(
                    None, None, f"{self._path}: corrupt compressed data in the bytes from "
                    f"offset {self._read - len(self._pending)}: {e}") from None
            self._pending = self._inflate.unconsumed_tail
            if self._inflate.eof:
                rest = self._inflate.unused_data
                self._inflate = zlib.decompressobj(self._wbits)
                self._pending = rest
            if data:
                out.append(data)
                have += len(data)
        return b"".join(out)


class PlainSink:
    """Writes bytes to a file unchanged."""

    def __init__(self, file):
        self.write = file.write
        self._file = file

    def flush(self):
        """Pushes buffered bytes to the OS."""
        self._file.flush()

    def close(self):
        """Closes the file."""
        self._file.close()


class ZlibSink:
    """Compresses bytes into a file, as TF's ZlibOutputBuffer does.

    Args:
      file: a binary file open for writing.
      gzip: gzip wrapper (True) or zlib wrapper (False).
      level, method, window_bits, mem_level, strategy: zlib parameters; None
        picks TF's defaults.
      flush_mode: zlib flush mode applied by flush(); TF's default
        Z_NO_FLUSH leaves bytes inside the compressor until close().
    """

    def __init__(self, file, gzip, level=None, method=None, window_bits=None,
                 mem_level=None, strategy=None, flush_mode=None):
        self._file = file
        self._deflate = zlib.compressobj(
            zlib.Z_DEFAULT_COMPRESSION if level is None else level,
            zlib.DEFLATED if method is None else method,
            window_bits or (_GZIP_WBITS if gzip else zlib.MAX_WBITS),
            9 if mem_level is None else mem_level,
            zlib.Z_DEFAULT_STRATEGY if strategy is None else strategy)
        self._flush_mode = zlib.Z_NO_FLUSH if flush_mode is None else flush_mode
        self._pending = []
        self._pending_size = 0

    def write(self, data):
        """Compresses `data` into the file (in batches of 256 KiB, as TF does)."""
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size >= _INPUT_BUFFER:
            self._deflate_pending()

    def _deflate_pending(self):
        if self._pending:
            out = self._deflate.compress(b"".join(self._pending))
            self._pending = []
            self._pending_size = 0
            if out:
                self._file.write(out)

    def flush(self):
        """Applies the flush mode, then pushes buffered bytes to the OS."""
        self._deflate_pending()
        if self._flush_mode != zlib.Z_NO_FLUSH:
            self._file.write(self._deflate.flush(self._flush_mode))
        self._file.flush()

    def close(self):
        """Finishes the compressed stream and closes the file."""
        try:
            self._deflate_pending()
            self._file.write(self._deflate.flush(zlib.Z_FINISH))
        finally:
            self._file.close()
