"""TFRecord files: `TFRecordWriter`, `tf_record_iterator`, `TFRecordOptions`.

Each record is framed as TensorFlow frames it:

    uint64 length (little-endian)
    uint32 masked CRC32C of those 8 length bytes
    byte   data[length]
    uint32 masked CRC32C of the data

optionally inside one ZLIB or GZIP stream. Reading follows TF's C++ reader:
a file that ends inside a record's 12-byte header ends the iteration quietly;
one that ends inside the data or its checksum raises DataLossError
("truncated record at <offset>"); a checksum mismatch raises DataLossError
("corrupted record at <offset>"). Our messages add the file name.
"""
import os
import struct

import google_crc32c

from trainflow._src.formats import zlib_stream
from trainflow._src.framework import errors

_HEADER = struct.Struct("<QI")
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_HEADER_SIZE = 12
_FOOTER_SIZE = 4
_MASK_DELTA = 0xA282EAD8
_READ_CHUNK = 1 << 20
_MAX_READ = 1 << 26          # never ask the OS for more than this at once
_BIG_RECORD = 1 << 16        # write larger records without concatenating
_crc = google_crc32c.value


def _masked_crc(data):
    c = _crc(data)
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF


class TFRecordCompressionType:
    """The type of compression for the records (`tf.io.TFRecordCompressionType`)."""
    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """Options for reading and writing TFRecord files (`tf.io.TFRecordOptions`).

    Args:
      compression_type: "GZIP", "ZLIB", "" / None (no compression), or a
        TFRecordCompressionType value.
      flush_mode: zlib flush mode used by `TFRecordWriter.flush` (default
        Z_NO_FLUSH, as TF).
      input_buffer_size, output_buffer_size: accepted for TF compatibility;
        buffering is chosen internally.
      window_bits, compression_level, compression_method, mem_level,
      compression_strategy: zlib parameters; None keeps TF's defaults.

    Raises:
      ValueError: if compression_type is not a valid compression type.
    """

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """Returns "ZLIB", "GZIP" or "" for a TFRecordOptions, a type value or a string.

        Raises:
          ValueError: if `options` names no compression type.
        """
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, int) and options in cls.compression_type_map:
            return cls.compression_type_map[options]
        if isinstance(options, str) and options in cls.compression_type_map.values():
            return options
        raise ValueError(f'Not a valid compression_type: "{options}"')

    def __repr__(self):
        return (f"TFRecordOptions(compression_type="
                f"{self.get_compression_type_string(self)!r})")


def _as_options(options):
    return options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)


def _path_str(path):
    """A path as str (bytes in any encoding kept through surrogateescape).

    Raises:
      TypeError: for something that is not a path, in TF's words.
    """
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(f"Expected binary or unicode string, got {path!r}") from None
    return os.fsdecode(path) if isinstance(path, bytes) else path


class TFRecordWriter:
    """Writes records to a TFRecord file (`tf.io.TFRecordWriter`).

    Usable as a context manager; the file is closed on exit.

    Args:
      path: the file to create (replaced if it exists).
      options: a TFRecordOptions, a compression type string, or a
        TFRecordCompressionType value.

    Raises:
      NotFoundError / PermissionDeniedError: if `path` cannot be created.
      ValueError: if `options` names no valid compression type.
    """

    _MODE = "wb"

    def __init__(self, path, options=None):
        options = _as_options(options)
        kind = TFRecordOptions.get_compression_type_string(options)
        self._path = _path_str(path)
        file = zlib_stream.open_file(self._path, self._MODE, buffering=_READ_CHUNK)
        if kind:
            self._sink = zlib_stream.ZlibSink(
                file, gzip=(kind == "GZIP"), level=options.compression_level,
                method=options.compression_method, window_bits=options.window_bits,
                mem_level=options.mem_level, strategy=options.compression_strategy,
                flush_mode=options.flush_mode)
        else:
            self._sink = zlib_stream.PlainSink(file)
        self._write = self._sink.write
        self._headers = {}   # length -> its 12 header bytes; lengths repeat a lot
        self._closed = False

    def write(self, record):
        """Appends one record.

        Args:
          record: bytes (or str, written as UTF-8).

        Raises:
          FailedPreconditionError: if the writer is closed.
          TypeError: if `record` is not bytes-like or str.
        """
        if self._closed:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif not isinstance(record, bytes):
            try:
                record = bytes(memoryview(record))
            except TypeError:
                raise TypeError(f"TFRecordWriter.write() takes bytes or str, got "
                                f"{type(record).__name__}") from None
        n = len(record)
        header = self._headers.get(n)
        if header is None:
            length = _U64.pack(n)
            header = length + _U32.pack(_masked_crc(length))
            if len(self._headers) < 4096:
                self._headers[n] = header
        c = _crc(record)
        footer = _U32.pack((((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF)
        if n < _BIG_RECORD:
            self._write(header + record + footer)
        else:
            self._write(header)
            self._write(record)
            self._write(footer)

    def flush(self):
        """Pushes written records to the file.

        Raises:
          FailedPreconditionError: if the writer is closed.
        """
        if self._closed:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        self._sink.flush()

    def close(self):
        """Finishes and closes the file. Closing twice is allowed."""
        if not self._closed:
            self._closed = True
            self._sink.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        if not getattr(self, "_closed", True):
            try:
                self.close()
            except Exception:  # noqa: BLE001 - nothing to report to at interpreter exit
                pass


class _AppendingWriter(TFRecordWriter):
    _MODE = "ab"


def appending_writer(path):
    """A TFRecordWriter (uncompressed) that appends to `path` instead of replacing it."""
    return _AppendingWriter(path)


def _read_records(source, file, path, state, start):
    """Yields the records of `source`, keeping `state.offset` at the next record.

    `start` is the stream offset of the first byte `source` returns. `file`
    (under `source`) is closed when the records end or an error is raised.
    """
    try:
        yield from _parse(source, path, state, start)
    finally:
        file.close()


def _parse(source, path, state, start):
    buf = b""
    pos = 0
    base = start
    eof = False
    unpack_header = _HEADER.unpack_from
    # The masked CRC of each length's 8 bytes seen so far: equal lengths skip the check.
    known_lengths = {}
    unpack_u32 = _U32.unpack_from
    crc = _crc
    delta = _MASK_DELTA
    while True:
        # The records whole in `buf`, in a tight loop.
        limit = len(buf) - _HEADER_SIZE
        while pos <= limit:
            length, length_crc = unpack_header(buf, pos)
            if known_lengths.get(length) != length_crc:
                _check_length(buf, pos, length_crc, known_lengths, base, path)
            end = pos + _HEADER_SIZE + length + _FOOTER_SIZE
            if end > limit + _HEADER_SIZE:
                break
            data = buf[pos + _HEADER_SIZE:end - _FOOTER_SIZE]
            c = crc(data)
            if (((c >> 15) | (c << 17)) + delta) & 0xFFFFFFFF != unpack_u32(buf, end - 4)[0]:
                raise errors.DataLossError(
                    None, None, f"corrupted record at {base + pos + _HEADER_SIZE} in {path}")
            pos = end
            state.offset = base + end
            yield data
        if len(buf) - pos < _HEADER_SIZE:
            if not eof:
                more = source.read(_READ_CHUNK)
                if more:
                    buf = buf[pos:] + more
                    base += pos
                    pos = 0
                    continue
                eof = True
            return  # 0..11 bytes left: TF stops as at end of file
        # A record running past the buffer: read on until it is whole.
        length = unpack_header(buf, pos)[0]
        need = _HEADER_SIZE + length + _FOOTER_SIZE
        parts = [buf[pos:]]
        have = len(buf) - pos
        while have < need and not eof:
            more = source.read(min(max(_READ_CHUNK, need - have), _MAX_READ))
            if not more:
                eof = True
                break
            parts.append(more)
            have += len(more)
        buf = b"".join(parts)
        base += pos
        pos = 0
        if need > len(buf):
            raise errors.DataLossError(
                None, None, f"truncated record at {base}' failed with "
                f"{source.eof_reason} in {path}")


def _check_length(buf, pos, length_crc, known_lengths, base, path):
    """Checks the masked CRC of the record length at `pos` (remembered when right).

    Raises:
      DataLossError: "corrupted record" when it does not match.
    """
    c = _crc(buf[pos:pos + 8])
    if (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF != length_crc:
        raise errors.DataLossError(None, None, f"corrupted record at {base + pos} in {path}")
    if len(known_lengths) < 4096:
        known_lengths[_U64.unpack_from(buf, pos)[0]] = length_crc


class _RecordIterator:
    """Iterator over a TFRecord file's records (what tf_record_iterator returns).

    close() releases the file; reopen() opens it again and continues after the
    last record read (useful on a file that is still being written).
    """

    def __init__(self, path, options):
        options = _as_options(options)
        self._path = _path_str(path)
        self._kind = TFRecordOptions.get_compression_type_string(options)
        self._window_bits = options.window_bits
        self.offset = 0
        self._file = None
        self._records = iter(())
        self._open()

    def _open(self):
        self._file = zlib_stream.open_file(self._path, "rb", buffering=0)
        if self._kind:
            source = zlib_stream.ZlibSource(self._file, self._path, self._kind == "GZIP",
                                            window_bits=self._window_bits)
            skip = self.offset
            while skip:  # compressed streams cannot seek: decompress up to the offset
                chunk = source.read(min(skip, _READ_CHUNK))
                if not chunk:
                    break
                skip -= len(chunk)
        else:
            self._file.seek(self.offset)
            source = zlib_stream.PlainSource(self._file)
        self._records = _read_records(source, self._file, self._path, self, self.offset)

    def __iter__(self):
        # The generator itself, so for-loops pay no per-record wrapper call.
        return self._records

    def __next__(self):
        return next(self._records)

    def close(self):
        """Closes the file; further next() calls end the iteration."""
        if self._file is not None:
            self._records.close()
            self._file.close()
        self._file = None
        self._records = iter(())

    def reopen(self):
        """Reopens the file after close(), continuing after the last record read.

        Raises:
          FailedPreconditionError: if the iterator is not closed.
        """
        if self._file is not None:
            raise errors.FailedPreconditionError(None, None, "Reader is not closed.")
        self._open()


def tf_record_iterator(path, options=None):
    """Returns an iterator over the records of a TFRecord file (`tf.io.tf_record_iterator`).

    Args:
      path: the file to read.
      options: a TFRecordOptions, a compression type string, or a
        TFRecordCompressionType value.

    Returns:
      An iterator of bytes, one per record, with close() and reopen().

    Raises:
      NotFoundError: if `path` does not exist (raised here, not on iteration).
      DataLossError: while iterating, on a corrupt or truncated record.
      ValueError: if `options` names no valid compression type.
    """
    return _RecordIterator(path, options)
