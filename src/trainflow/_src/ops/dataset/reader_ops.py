"""Datasets that read files: TFRecordDataset, TextLineDataset, FixedLengthRecordDatasetV2.

Each reads its files one after another, in order. The bytes come from the readers of
`formats/` (plain, ZLIB or GZIP streams), whose reads and decompression run in C with
the GIL released, so a reader on a prefetch or interleave thread overlaps the step.
An iterator's position is (file index, records taken from that file); restoring
reopens the file and skips to it.
"""
import itertools

import numpy as np

from trainflow._src.formats import tfrecord, zlib_stream
from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset

_CHUNK = 1 << 18


def as_str(name):
    return name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else str(name)


def filename_list(filenames, op=None):
    """The file names of a scalar or vector string input, as str."""
    arr = np.asarray(filenames, dtype=object)
    if arr.ndim > 1:
        raise errors.InvalidArgumentError(None, op, "`filenames` must be a scalar or a vector.")
    return [as_str(f) for f in arr.reshape(-1)]


def compression_kind(value, op=None):
    """"", "ZLIB" or "GZIP" from a compression_type input."""
    kind = as_str(np.asarray(value, dtype=object).reshape(-1)[0]) if np.size(value) else ""
    if kind not in ("", "ZLIB", "GZIP"):
        raise errors.InvalidArgumentError(None, op, f"Unsupported compression type: {kind}")
    return kind


def open_stream(path, kind):
    """(file, source): the opened file and a reader of its (decompressed) bytes."""
    file = zlib_stream.open_file(path, "rb", buffering=0)
    if kind:
        return file, zlib_stream.ZlibSource(file, path, kind == "GZIP")
    return file, zlib_stream.PlainSource(file)


class FilesValue(dv.DatasetValue):
    """The records of `files`, read in order by `records(path)` (an iterator that may have
    a close()): each a string element, or (with `element`) an element itself."""

    def __init__(self, files, records, element=False):
        self.files, self.records, self.element = files, records, element

    def iterator(self):
        return FilesIterator(self)


class FilesIterator(dv.ElementIterator):
    def __init__(self, spec):
        self.spec = spec
        self.index = 0       # the file being read (or next to open)
        self.taken = 0       # records taken from it
        self.current = None  # its record iterator

    def next(self, state):
        files = self.spec.files
        while self.index < len(files):
            if self.current is None:
                self.current = self.spec.records(files[self.index])
                self.taken = 0
            record = next(self.current, None)
            if record is not None:
                self.taken += 1
                return record if self.spec.element else [np.asarray(record, dtype=object)]
            self._close_current()
            self.index += 1
        return dv.END

    def next_many(self, state, n):
        got = self._records(n)
        if self.spec.element:
            return got
        out = []
        for record in got:
            element = np.empty((), dtype=object)
            element[()] = record
            out.append([element])
        return out

    def next_stacked(self, state, n):
        """Up to `n` next records as one string vector (batch's components, made without
        an array per record), or None where records are elements of other kinds."""
        if self.spec.element:
            return None
        got = self._records(n)
        column = np.empty(len(got), dtype=object)
        column[:] = got
        return [column]

    def _records(self, n):
        """Up to `n` next records (fewer only at the end of the last file)."""
        files = self.spec.files
        out = []
        while len(out) < n and self.index < len(files):
            if self.current is None:
                self.current = self.spec.records(files[self.index])
                self.taken = 0
            got = list(itertools.islice(self.current, n - len(out)))
            self.taken += len(got)
            out.extend(got)
            if len(out) < n:
                self._close_current()
                self.index += 1
        return out

    def _close_current(self):
        if self.current is not None:
            close = getattr(self.current, "close", None)
            if close is not None:
                close()
            self.current = None

    def save(self):
        return {"index": self.index, "taken": self.taken if self.current is not None else 0}

    def restore(self, saved):
        self._close_current()
        self.index, skip = int(saved["index"]), int(saved["taken"])
        if skip and self.index < len(self.spec.files):
            self.current = self.spec.records(self.spec.files[self.index])
            for _ in range(skip):
                next(self.current, None)
            self.taken = skip

    def close(self):
        self._close_current()


# -- TFRecord ----------------------------------------------------------------------------------
def tfrecord_records(kind):
    def records(path):
        return iter(tfrecord.tf_record_iterator(path, kind or None))
    return records


def _tfrecord_dataset(filenames, compression_type, buffer_size, *, ctx):
    return FilesValue(filename_list(filenames, ctx.op),
                      tfrecord_records(compression_kind(compression_type, ctx.op)))


# -- text lines --------------------------------------------------------------------------------
def text_lines(path, kind):
    """The lines of a text file without their "\\n" (or "\\r\\n"); a last line without a
    newline counts, an empty one after the last newline does not."""
    file, source = open_stream(path, kind)
    try:
        rest = b""
        while True:
            chunk = source.read(_CHUNK)
            if not chunk:
                break
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                yield line[:-1] if line.endswith(b"\r") else line
        if rest:
            yield rest[:-1] if rest.endswith(b"\r") else rest
    finally:
        file.close()


def _text_line_dataset(filenames, compression_type, buffer_size, *, ctx):
    kind = compression_kind(compression_type, ctx.op)
    return FilesValue(filename_list(filenames, ctx.op), lambda path: text_lines(path, kind))


# -- fixed-length records ----------------------------------------------------------------------
def _read_all(source):
    parts = []
    while True:
        chunk = source.read(1 << 20)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)


def fixed_length_records(path, kind, header, record, footer, op=None):
    """The `record`-byte records between a file's `header` and `footer` bytes.

    Raises:
      InvalidArgumentError: if an uncompressed file's body is not a multiple of `record`.
    """
    file, source = open_stream(path, kind)
    try:
        data = _read_all(source)
    finally:
        file.close()
    body = len(data) - header - footer
    if not kind and body % record:
        raise errors.InvalidArgumentError(
            None, op, f"Excluding the header ({header} bytes) and footer ({footer} bytes), "
                      f"input file \"{path}\" has body length {max(body, 0)} bytes, which is "
                      f"not an exact multiple of the record length ({record} bytes).")
    end = header + max(body, 0) // record * record
    return (data[i:i + record] for i in range(header, end, record))


def _fixed_length_dataset(filenames, header_bytes, record_bytes, footer_bytes, buffer_size,
                          compression_type, *, ctx):
    op = ctx.op
    header = dv.scalar_value(header_bytes, "header_bytes")
    record = dv.scalar_value(record_bytes, "record_bytes")
    footer = dv.scalar_value(footer_bytes, "footer_bytes")
    if header < 0:
        raise errors.InvalidArgumentError(None, op, "`header_bytes` must be >= 0")
    if record <= 0:
        raise errors.InvalidArgumentError(None, op, "`record_bytes` must be > 0")
    if footer < 0:
        raise errors.InvalidArgumentError(None, op, "`footer_bytes` must be >= 0")
    kind = compression_kind(compression_type, op)
    return FilesValue(filename_list(filenames, op),
                      lambda path: fixed_length_records(path, kind, header, record, footer, op))


register_dataset("TFRecordDataset",
                 ["filenames: string", "compression_type: string", "buffer_size: int64"], [],
                 _tfrecord_dataset, element_attrs=False)
register_dataset("TextLineDataset",
                 ["filenames: string", "compression_type: string", "buffer_size: int64"], [],
                 _text_line_dataset, element_attrs=False)
register_dataset("FixedLengthRecordDatasetV2",
                 ["filenames: string", "header_bytes: int64", "record_bytes: int64",
                  "footer_bytes: int64", "buffer_size: int64", "compression_type: string"], [],
                 _fixed_length_dataset, element_attrs=False)
