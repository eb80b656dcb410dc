"""DecodeRaw, DecodeCSV and DecodeCompressed: `tf.decode_raw`, `tf.decode_csv`,
`tf.io.decode_compressed`."""
__all__ = ["decode_raw", "decode_csv", "decode_compressed", "decode_json_example"]

import zlib

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


# -- DecodeRaw ---------------------------------------------------------------------------
def _decode_raw_kernel(input_bytes, *, out_type, little_endian):
    np_type = np.dtype(out_type.as_numpy_dtype)
    flat = np.asarray(input_bytes, dtype=object).reshape(-1)
    size = np_type.itemsize
    width = len(flat[0]) if flat.size else 0
    if width % size:
        raise _invalid(f"Input to DecodeRaw has length {width} that is not a multiple of "
                       f"{size}, the size of {out_type.name}")
    for i, s in enumerate(flat):
        if len(s) != width:
            raise _invalid(f"DecodeRaw requires input strings to all be the same size, but "
                           f"element {i} has size {len(s)} != {width}")
    order = "<" if little_endian else ">"
    typed = np_type.newbyteorder(order) if size > 1 else np_type
    data = np.frombuffer(b"".join(flat), dtype=typed) if flat.size else \
        np.zeros((0,), np_type)
    shape = np.shape(input_bytes) + (width // size,)
    return data.astype(np_type, copy=True).reshape(shape)


register_op("DecodeRaw", inputs=["bytes: string"], outputs=["output: out_type"],
            attrs=["out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, "
                   "complex64, complex128, bool, bfloat16}", "little_endian: bool = true"],
            shape_fn=lambda op: [op._inputs[0]._shape.concatenate(TensorShape([None]))
                                 if op._inputs[0]._shape.rank is not None else None],
            kernel=_decode_raw_kernel)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None,
               bytes=None):  # noqa: A002 - TF's name
    """Reinterprets the bytes of each string as a vector of `out_type` numbers."""
    if input_bytes is None:
        input_bytes = bytes
    return apply_op("DecodeRaw", bytes=input_bytes, out_type=out_type,
                    little_endian=little_endian, name=name).outputs[0]


# -- DecodeCSV ---------------------------------------------------------------------------
def split_csv(record, delim, use_quote, index):
    """The fields of one CSV record (RFC 4180 quoting when `use_quote`)."""
    if not use_quote:
        return record.split(delim)
    fields, i, n = [], 0, len(record)
    while True:
        if i < n and record[i:i + 1] == b'"':
            i += 1
            parts = []
            while True:
                j = record.find(b'"', i)
                if j < 0:
                    raise _invalid(f"Quoted field has to end with quote followed by delim or "
                                   f"end in record {index}")
                parts.append(record[i:j])
                if record[j + 1:j + 2] == b'"':
                    parts.append(b'"')
                    i = j + 2
                    continue
                i = j + 1
                break
            fields.append(b"".join(parts))
            if i < n and record[i:i + len(delim)] != delim:
                raise _invalid(f"Quote inside a string has to be escaped by another quote in "
                               f"record {index}")
        else:
            j = record.find(delim, i)
            field = record[i:] if j < 0 else record[i:j]
            if b'"' in field:
                raise _invalid(f"Unquoted fields cannot have quotes/CRLFs inside in record "
                               f"{index}")
            fields.append(field)
            i = n if j < 0 else j
        if i >= n:
            return fields
        i += len(delim)
        if i >= n:
            fields.append(b"")
            return fields


_CONVERT = {np.dtype(np.float32): float, np.dtype(np.float64): float,
            np.dtype(np.int32): int, np.dtype(np.int64): int}


def _decode_csv_kernel(records, record_defaults, *, OUT_TYPE, field_delim, use_quote_delim,
                       na_value, select_cols):
    delim = field_delim if isinstance(field_delim, bytes) else field_delim.encode()
    na = na_value if isinstance(na_value, bytes) else na_value.encode()
    flat = np.asarray(records, dtype=object).reshape(-1)
    ncols = len(OUT_TYPE)
    for i, d in enumerate(record_defaults):
        if np.size(d) > 1:
            raise _invalid(f"There should only be 1 default per field but field {i} has "
                           f"{np.size(d)}")
    columns = [[None] * flat.size for _ in range(ncols)]
    for r, rec in enumerate(flat):
        rec = rec if isinstance(rec, bytes) else str(rec).encode()
        fields = split_csv(rec, delim, use_quote_delim, r)
        if select_cols:
            if len(fields) <= select_cols[-1]:
                raise _invalid(f"Expect {select_cols[-1] + 1} fields but have {len(fields)} "
                               f"in record {r}")
            fields = [fields[c] for c in select_cols]
        elif len(fields) != ncols:
            raise _invalid(f"Expect {ncols} fields but have {len(fields)} in record {r}")
        for c, (field, dtype) in enumerate(zip(fields, OUT_TYPE)):
            default = record_defaults[c]
            if field == b"" or (na and field == na):
                if np.size(default) == 0:
                    raise _invalid(f"Field {c} is required but missing in record {r}!")
                columns[c][r] = np.asarray(default).reshape(-1)[0]
                continue
            if dtype == dtypes.string:
                columns[c][r] = field
                continue
            try:
                value = _CONVERT[np.dtype(dtype.as_numpy_dtype)](field)
                if dtype.is_integer and not (dtype.min <= value <= dtype.max):
                    raise ValueError(field)
            except ValueError:
                raise _invalid(f"Field {c} in record {r} is not a valid {dtype.name}: "
                               f"{field.decode('utf-8', 'replace')}") from None
            columns[c][r] = value
    shape = np.shape(records)
    out = []
    for col, dtype in zip(columns, OUT_TYPE):
        np_type = object if dtype == dtypes.string else dtype.as_numpy_dtype
        arr = np.empty(len(col), dtype=np_type)
        arr[:] = col
        out.append(arr.reshape(shape))
    return out[0] if len(out) == 1 else tuple(out)


register_op("DecodeCSV", inputs=["records: string", "record_defaults: OUT_TYPE"],
            outputs=["output: OUT_TYPE"],
            attrs=["OUT_TYPE: list({float, double, int32, int64, string})",
                   "field_delim: string = ','", "use_quote_delim: bool = true",
                   "na_value: string = ''", "select_cols: list(int) = []"],
            shape_fn=lambda op: [op._inputs[0]._shape] * len(op._outputs),
            kernel=_decode_csv_kernel)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """Converts CSV records to one tensor per column (`record_defaults` gives each
    column's type and its default; an empty default makes the column required).

    Raises:
      ValueError: for select_cols that are not strictly increasing non-negative column
        numbers, one per default.
    """
    if select_cols is not None:
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    defaults = [convert_to_tensor(d, name=f"record_defaults_{i}")
                for i, d in enumerate(record_defaults)]
    op = apply_op("DecodeCSV", records=records, record_defaults=defaults,
                  field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                  select_cols=list(select_cols or []), name=name)
    return list(op.outputs)


# -- DecodeCompressed ----------------------------------------------------------------------
def _decode_compressed_kernel(input_bytes, *, compression_type):
    kind = compression_type.decode() if isinstance(compression_type, bytes) else \
        compression_type
    flat = np.asarray(input_bytes, dtype=object).reshape(-1)
    out = np.empty(flat.size, dtype=object)
    wbits = {"ZLIB": zlib.MAX_WBITS, "GZIP": zlib.MAX_WBITS + 16}.get(kind)
    if kind and wbits is None:
        raise _invalid(f"Unsupported compression type: {kind}")
    for i, s in enumerate(flat):
        if not kind:
            out[i] = s
            continue
        try:
            out[i] = zlib.decompress(s, wbits)
        except zlib.error as e:
            raise errors.DataLossError(None, None, f"Element {i}: corrupt {kind} data: "
                                                   f"{e}") from None
    return out.reshape(np.shape(input_bytes))


register_op("DecodeCompressed", inputs=["bytes: string"], outputs=["output: string"],
            attrs=["compression_type: string = ''"],
            shape_fn=lambda op: [op._inputs[0]._shape], kernel=_decode_compressed_kernel)
# -- DecodeJSONExample ---------------------------------------------------------------------
def _decode_json_kernel(json_examples):
    # lazy: protobuf is needed only by DecodeJSONExample.
    from google.protobuf import json_format
    from trainflow._src.protos.example_pb2 import Example
    flat = np.asarray(json_examples, dtype=object).reshape(-1)
    out = np.empty(flat.size, dtype=object)
    for i, s in enumerate(flat):
        text = s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s)
        try:
            out[i] = json_format.Parse(text, Example()).SerializeToString()
        except json_format.ParseError as e:
            raise _invalid(f"Error while parsing JSON: {e}") from None
    return out.reshape(np.shape(json_examples))


register_op("DecodeJSONExample", inputs=["json_examples: string"],
            outputs=["binary_examples: string"], shape_fn=lambda op: [op._inputs[0]._shape],
            kernel=_decode_json_kernel)


def decode_json_example(json_examples, name=None):
    """Converts JSON-encoded Example protos to their binary serialization."""
    return apply_op("DecodeJSONExample", json_examples=json_examples, name=name).outputs[0]


for _t in ("DecodeRaw", "DecodeCSV", "DecodeCompressed", "DecodeJSONExample"):
    NotDifferentiable(_t)


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002 - TF's name
    """Decompresses each ZLIB or GZIP string ("" leaves them unchanged)."""
    return apply_op("DecodeCompressed", bytes=bytes, compression_type=compression_type,
                    name=name).outputs[0]
