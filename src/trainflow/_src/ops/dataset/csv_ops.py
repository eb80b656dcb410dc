"""CSVDatasetV2 (`tf.data.experimental.CsvDataset`): the records of CSV files, one
tuple of scalars each, parsed by TF's rules.

Records end at "\\n", "\\r" or "\\r\\n" outside quotes (a last one may lack it). With
`use_quote_delim`, a field opening with '"' runs to the next lone '"' ('""' is a quote)
and may hold delimiters and line breaks; an unquoted field may hold no quote. An empty
field, or one equal to `na_value`, takes its column's default (an error where the
default is empty: the field is required). `select_cols` / `exclude_cols` keep some
columns. Lines without quotes are split in one call; only quoted ones are scanned.
"""
import re

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.dataset.reader_ops import (FilesValue, as_str, compression_kind,
                                                   filename_list, open_stream)

_QUOTE = 0x22
_TYPE_NAMES = {dtypes.float32: "float", dtypes.float64: "double"}
_INT = re.compile(rb"\s*[+-]?\d+\s*\Z")
_FLOAT = re.compile(rb"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|"
                    rb"nan)\s*\Z", re.IGNORECASE)


def _invalid(msg, op=None):
    return errors.InvalidArgumentError(None, op, msg)


def _read_all(path, kind):
    file, source = open_stream(path, kind)
    try:
        parts = []
        while chunk := source.read(1 << 20):
            parts.append(chunk)
        return b"".join(parts)
    finally:
        file.close()


def _line_end(data, pos):
    """The position of the line break at or after `pos` (len(data) if none)."""
    n = data.find(b"\n", pos)
    r = data.find(b"\r", pos, n if n >= 0 else len(data))
    if r >= 0:
        return r
    return n if n >= 0 else len(data)


def _after_break(data, pos):
    """The position after the line break at `pos`."""
    if data[pos:pos + 2] == b"\r\n":
        return pos + 2
    return pos + 1


def _quoted(data, pos, delim):
    """(field, position after its closing quote) of the quoted field opening at `pos`."""
    parts = []
    pos += 1
    while True:
        q = data.find(b'"', pos)
        if q < 0:
            raise _invalid("Reached end of file without closing quoted field in record")
        parts.append(data[pos:q])
        nxt = data[q + 1:q + 2]
        if nxt == b'"':          # an escaped quote
            parts.append(b'"')
            pos = q + 2
        elif nxt in (b"", delim, b"\n", b"\r"):
            return b"".join(parts), q + 1
        else:                    # a lone quote inside: TF reads on for the closing one
            parts.append(b'"')
            pos = q + 1


def _scan_record(data, pos, delim, use_quote):
    """(fields, position of the next record) of the record starting at `pos`."""
    n = len(data)
    end = _line_end(data, pos)
    line = data[pos:end]
    if not use_quote or b'"' not in line:
        return line.split(delim), (end if end == n else _after_break(data, end))
    fields = []
    while True:
        if pos < n and data[pos] == _QUOTE:
            field, pos = _quoted(data, pos, delim)
        else:
            stop = min(_line_end(data, pos), _find(data, delim, pos, n))
            field = data[pos:stop]
            if b'"' in field:
                raise _invalid("Unquoted fields cannot have quotes inside")
            pos = stop
        fields.append(field)
        if pos >= n:
            return fields, n
        if data[pos:pos + 1] == delim:
            pos += 1
            continue
        return fields, _after_break(data, pos)


def _find(data, sub, start, n):
    at = data.find(sub, start)
    return n if at < 0 else at


class CsvSpec:
    """What to take from each record and how to convert it."""

    def __init__(self, defaults, types, header, delim, use_quote, na_value, select, exclude,
                 op):
        self.defaults, self.types, self.header = defaults, types, header
        self.delim, self.use_quote, self.na_value = delim, use_quote, na_value
        self.select, self.exclude, self.op = select, exclude, op

    def records(self, path, kind):
        data = _read_all(path, kind)
        pos, n = 0, len(data)
        if self.header:
            if not data:
                raise _invalid(f"Can't read header of file {path}", self.op)
            end = _line_end(data, 0)
            pos = n if end == n else _after_break(data, end)
        while pos < n:
            try:
                fields, pos = _scan_record(data, pos, self.delim, self.use_quote)
            except errors.InvalidArgumentError as e:
                raise _invalid(f"{e.message} in file {path}", self.op) from None
            yield self.element(fields)

    def columns(self, fields):
        want = len(self.types)
        if self.select:
            if len(fields) <= self.select[-1]:
                have = sum(1 for c in self.select if c < len(fields))
                raise _invalid(f"Expect {want} fields but have {have} in record", self.op)
            return [fields[c] for c in self.select]
        if self.exclude:
            kept = [f for c, f in enumerate(fields) if c not in self.exclude]
        else:
            kept = fields
        if len(kept) > want:
            raise _invalid(f"Expect {want} fields but have more in record", self.op)
        if len(kept) < want:
            raise _invalid(f"Expect {want} fields but have {len(kept)} in record", self.op)
        return kept

    def element(self, fields):
        out = []
        for i, (field, dtype, default) in enumerate(zip(self.columns(fields), self.types,
                                                        self.defaults)):
            if field == b"" or (self.na_value and field == self.na_value):
                if default.size == 0:
                    raise _invalid(f"Field {i} is required but missing in record!", self.op)
                out.append(default.reshape(()))
            else:
                out.append(_convert(field, dtype, i, self.op))
        return out


def _convert(field, dtype, i, op):
    if dtype == dtypes.string:
        value = np.empty((), dtype=object)
        value[()] = field
        return value
    np_type = dtype.as_numpy_dtype
    if dtype.is_integer:
        ok = _INT.match(field) is not None
        value = int(field) if ok else 0
        ok = ok and dtype.min <= value <= dtype.max
    else:
        ok = _FLOAT.match(field) is not None
        value = float(field) if ok else 0.0
    if not ok:
        name = _TYPE_NAMES.get(dtype, dtype.name)
        raise _invalid(f"Field {i} in record is not a valid {name}: "
                       f"{field.decode('utf-8', 'replace')}", op)
    return np.asarray(value, dtype=np_type)


def _int_list(value):
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _csv_dataset(filenames, compression_type, buffer_size, header, field_delim,
                 use_quote_delim, na_value, select_cols, record_defaults, exclude_cols, *,
                 output_types, ctx):
    op = ctx.op
    if dv.scalar_value(buffer_size, "buffer_size") <= 0:
        raise _invalid("buffer_size should be positive", op)
    delim = as_str(np.asarray(field_delim, dtype=object)[()]).encode()
    if len(delim) != 1:
        raise _invalid("field_delim should be only 1 char", op)
    select, exclude = _int_list(select_cols), _int_list(exclude_cols)
    if select and exclude:
        raise _invalid("Either select_cols or exclude_cols should be empty", op)
    for cols, name in ((select, "select_cols"), (exclude, "exclude_cols")):
        if any(c < 0 for c in cols):
            raise _invalid(f"{name} should be non-negative indices", op)
        if any(b <= a for a, b in zip(cols, cols[1:])):
            raise _invalid(f"{name} should be strictly increasing indices", op)
    if select and len(select) != len(output_types):
        raise _invalid("select_cols should match output size", op)
    defaults = [np.asarray(d) for d in record_defaults]
    for i, d in enumerate(defaults):
        if d.size > 1:
            raise _invalid(f"There should only be 1 default per field but field {i} has "
                           f"{d.size}", op)
    spec = CsvSpec(defaults, list(output_types), bool(np.asarray(header)), delim,
                   bool(np.asarray(use_quote_delim)),
                   as_str(np.asarray(na_value, dtype=object)[()]).encode(), select, exclude,
                   op)
    kind = compression_kind(compression_type, op)
    return FilesValue(filename_list(filenames, op), lambda path: spec.records(path, kind),
                      element=True)


register_dataset("CSVDatasetV2",
                 ["filenames: string", "compression_type: string", "buffer_size: int64",
                  "header: bool", "field_delim: string", "use_quote_delim: bool",
                  "na_value: string", "select_cols: int64", "record_defaults: output_types",
                  "exclude_cols: int64"],
                 ["output_types: list({float,double,int32,int64,string}) >= 1",
                  "output_shapes: list(shape) >= 1"], _csv_dataset, element_attrs=False,
                 metadata=False)
