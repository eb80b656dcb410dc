"""`tf.io.decode_proto` / `tf.io.encode_proto` (DecodeProtoV2, EncodeProto): fields of
serialized protocol buffers to tensors and back, one message per batch entry.

Message types come from `descriptor_source`: "local://" is the process's default pool
(where trainflow's own protos, wire-compatible with TensorFlow's, answer to their
`tensorflow.` names too), "bytes://<FileDescriptorSet>" a serialized descriptor set, and
anything else a file holding one. A field's values are padded to the batch's largest
count with the field's default. TensorFlow marks both ops not differentiable.
"""
import collections
import importlib
import pkgutil
import threading

import numpy as np
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

from trainflow._src import protos
from trainflow._src.protos._pool import POOL
from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.gfile.gfile import GFile
from trainflow._src.ops.array.shape_util import dims_of, invalid_argument, shape_of

__all__ = ["decode_proto", "encode_proto"]

_FD = _descriptor.FieldDescriptor
# field type -> the output dtypes TensorFlow accepts for it (the first is the natural one)
_ALLOWED = {
    _FD.TYPE_DOUBLE: (dtypes.float64,), _FD.TYPE_FLOAT: (dtypes.float32, dtypes.float64),
    _FD.TYPE_INT64: (dtypes.int64,), _FD.TYPE_UINT64: (dtypes.uint64,),
    _FD.TYPE_INT32: (dtypes.int32, dtypes.int64), _FD.TYPE_FIXED64: (dtypes.uint64,),
    _FD.TYPE_FIXED32: (dtypes.uint32,), _FD.TYPE_BOOL: (dtypes.bool,),
    _FD.TYPE_STRING: (dtypes.string,), _FD.TYPE_GROUP: (dtypes.string,),
    _FD.TYPE_MESSAGE: (dtypes.string,), _FD.TYPE_BYTES: (dtypes.string,),
    _FD.TYPE_UINT32: (dtypes.uint32,), _FD.TYPE_ENUM: (dtypes.int32,),
    _FD.TYPE_SFIXED32: (dtypes.int32, dtypes.int64), _FD.TYPE_SFIXED64: (dtypes.int64,),
    _FD.TYPE_SINT32: (dtypes.int32, dtypes.int64), _FD.TYPE_SINT64: (dtypes.int64,),
}
_STRINGS = (_FD.TYPE_STRING, _FD.TYPE_BYTES, _FD.TYPE_MESSAGE, _FD.TYPE_GROUP)
_POOLS = {}
_POOLS_LOCK = threading.Lock()


def _as_text(value):
    return value.decode() if isinstance(value, bytes) else value


def _local_pools():
    # TF's local:// is every proto linked into the process: trainflow's own (its generated
    # modules register TF's names in trainflow's pool on import), then protobuf's default
    # pool (the user's generated modules and the well-known types).
    for info in pkgutil.iter_modules(protos.__path__):
        if info.name.endswith("_pb2"):
            importlib.import_module(f"{protos.__name__}.{info.name}")
    return (POOL, descriptor_pool.Default())


def _pools(source):
    source = source if isinstance(source, bytes) else source.encode()
    with _POOLS_LOCK:
        if source in _POOLS:
            return _POOLS[source]
        if source == b"local://":
            pools = _local_pools()
        else:
            if source.startswith(b"bytes://"):
                blob = source[len(b"bytes://"):]
            else:
                try:
                    with GFile(source.decode(), "rb") as f:
                        blob = f.read()
                except errors.OpError as e:
                    raise invalid_argument(f"Failed to read descriptor source "
                                           f"{source.decode()}: {e.message}") from e
            files = descriptor_pb2.FileDescriptorSet()
            try:
                files.ParseFromString(blob)
            except Exception as e:  # noqa: BLE001 - protobuf's DecodeError and its kin
                raise invalid_argument("Unable to parse the descriptor source as a "
                                       "FileDescriptorSet") from e
            pool = descriptor_pool.DescriptorPool()
            for file_proto in files.file:
                pool.Add(file_proto)
            pools = (pool,)
        _POOLS[source] = pools
        return pools


def _message_class(source, message_type):
    name = _as_text(message_type)
    for pool in _pools(source):
        try:
            desc = pool.FindMessageTypeByName(name)
        except KeyError:
            continue
        return message_factory.GetMessageClass(desc), desc
    raise invalid_argument(f"No descriptor found for message type {name}")


def _fields(desc, message_type, field_names):
    out = []
    for name in field_names:
        field = desc.fields_by_name.get(_as_text(name))
        if field is None:
            raise invalid_argument(f"Unknown field: {_as_text(name)} in message type "
                                   f"{_as_text(message_type)}")
        out.append(field)
    return out


def _check_types(fields, types):
    for field, dtype in zip(fields, types):
        if dtypes.as_dtype(dtype) not in _ALLOWED[field.type]:
            raise invalid_argument(f"Unexpected output type for {field.full_name}: "
                                   f"{dtypes.as_dtype(dtype).name}")


def _present(msg, field):
    """The values of `field` in `msg`, as many as the wire holds (at most one when
    singular)."""
    if field.is_repeated:
        return list(getattr(msg, field.name))
    if field.has_presence:
        return [getattr(msg, field.name)] if msg.HasField(field.name) else []
    value = getattr(msg, field.name)
    return [value] if value != field.default_value else []


def _to_output(field, value):
    if field.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        return value.SerializeToString()
    if field.type == _FD.TYPE_STRING:
        return value.encode()
    return value


def _default(field):
    if field.type in _STRINGS:
        return b"" if field.is_repeated or field.type != _FD.TYPE_STRING else \
            field.default_value.encode()
    if not field.is_repeated:
        return field.default_value
    if field.type == _FD.TYPE_ENUM:  # a repeated field's padding: its type's default
        return field.enum_type.values[0].number
    return False if field.type == _FD.TYPE_BOOL else 0


def _decode_kernel(serialized, *, message_type, field_names, output_types, descriptor_source,
                   message_format, sanitize):
    cls, desc = _message_class(descriptor_source, message_type)
    fields = _fields(desc, message_type, field_names)
    _check_types(fields, output_types)
    blobs = np.asarray(serialized, dtype=object)
    text = _as_text(message_format) == "text"
    per_message = []
    for i, blob in enumerate(blobs.reshape(-1)):
        msg = cls()
        try:
            if text:
                text_format.Parse(_as_text(blob), msg)
            else:
                msg.ParseFromString(blob if isinstance(blob, bytes) else blob.encode())
        except Exception as e:  # noqa: BLE001 - protobuf's DecodeError / ParseError
            raise errors.DataLossError(None, None, f"Unable to parse message {i} as "
                                                   f"{_as_text(message_type)}") from e
        per_message.append([[_to_output(f, v) for v in _present(msg, f)] for f in fields])
    batch = blobs.shape
    sizes = np.array([[len(vals) for vals in row] for row in per_message],
                     np.int32).reshape(batch + (len(fields),))
    outputs = [sizes]
    for j, (field, dtype) in enumerate(zip(fields, output_types)):
        # at least one column, as TensorFlow's kernel allocates
        width = max(1, max((len(row[j]) for row in per_message), default=0))
        np_type = object if field.type in _STRINGS else dtypes.as_dtype(dtype).as_numpy_dtype
        out = np.full((len(per_message), width), _default(field), dtype=np_type)
        for i, row in enumerate(per_message):
            out[i, :len(row[j])] = row[j]
        outputs.append(out.reshape(batch + (width,)))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _decode_shape(op):
    batch = dims_of(op.inputs[0])
    types = op._attrs["output_types"]
    if batch is None:
        return [shape_of(None)] * (1 + len(types))
    return [shape_of(list(batch) + [len(types)])] + [shape_of(list(batch) + [None])] * len(types)


register_op("DecodeProtoV2", inputs=["bytes: string"],
            outputs=["sizes: int32", "values: output_types"],
            attrs=["message_type: string", "field_names: list(string)",
                   "output_types: list(type) >= 0", "descriptor_source: string = 'local://'",
                   "message_format: string = 'binary'", "sanitize: bool = false"],
            shape_fn=_decode_shape, kernel=_decode_kernel, host_only=True)


def _encode_kernel(sizes, values, *, field_names, message_type, descriptor_source,
                   Tinput_types):  # noqa: N803 - TF's attr
    cls, desc = _message_class(descriptor_source, message_type)
    fields = _fields(desc, message_type, field_names)
    _check_types(fields, Tinput_types)
    sizes = np.asarray(sizes)
    if sizes.ndim < 1 or sizes.shape[-1] != len(fields):
        raise invalid_argument(f"sizes should be batch_size + [len(field_names)].  sizes="
                               f"{list(sizes.shape)}, field_names={len(fields)}")
    batch = sizes.shape[:-1]
    flat_sizes = sizes.reshape(-1, len(fields))
    flat_values = []
    for j, v in enumerate(values):
        v = np.asarray(v)
        if v.shape[:-1] != batch:
            raise invalid_argument(f"Values must match up to the last dimension; value {j} "
                                   f"has shape {list(v.shape)}, sizes {list(sizes.shape)}")
        flat_values.append(v.reshape(int(np.prod(batch)), -1))
    out = np.empty(flat_sizes.shape[0], dtype=object)
    for i in range(flat_sizes.shape[0]):
        msg = cls()
        for j, field in enumerate(fields):
            n = int(flat_sizes[i, j])
            if n > flat_values[j].shape[1]:
                raise invalid_argument(f"Size {n} for field {field.name} is larger than its "
                                       f"values' last dimension {flat_values[j].shape[1]}")
            items = flat_values[j][i, :n]
            _set_field(msg, field, items)
        out[i] = msg.SerializeToString()
    return out.reshape(batch)


def _set_field(msg, field, items):
    def convert(v):
        if field.type == _FD.TYPE_STRING:
            return v.decode() if isinstance(v, bytes) else str(v)
        if field.type == _FD.TYPE_BYTES:
            return bytes(v)
        if field.type == _FD.TYPE_BOOL:
            return bool(v)
        if field.type in (_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE):
            return float(v)
        return int(v)

    if field.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        if field.is_repeated:
            for v in items:
                getattr(msg, field.name).add().MergeFromString(bytes(v))
        elif len(items):
            getattr(msg, field.name).MergeFromString(bytes(items[-1]))
        return
    if field.is_repeated:
        getattr(msg, field.name).extend(convert(v) for v in items)
    elif len(items):
        setattr(msg, field.name, convert(items[-1]))


def _encode_shape(op):
    sizes = dims_of(op.inputs[0])
    return [shape_of(None if sizes is None else list(sizes[:-1]))]


register_op("EncodeProto", inputs=["sizes: int32", "values: Tinput_types"],
            outputs=["bytes: string"],
            attrs=["field_names: list(string)", "message_type: string",
                   "descriptor_source: string = 'local://'", "Tinput_types: list(type)"],
            shape_fn=_encode_shape, kernel=_encode_kernel, host_only=True)

NotDifferentiable("DecodeProtoV2")
NotDifferentiable("EncodeProto")

_DecodeProtoOutput = collections.namedtuple("DecodeProtoV2", ["sizes", "values"])


def decode_proto(bytes, message_type, field_names, output_types,  # noqa: A002 - TF's name
                 descriptor_source="local://", message_format="binary", sanitize=False,
                 name=None):
    """(sizes, values) of the fields `field_names` of serialized `message_type` protos:
    `sizes` [batch..., len(field_names)] int32 counts, `values` one tensor per field,
    [batch..., largest count], padded with the field's default."""
    op = apply_op("DecodeProtoV2", bytes=bytes, message_type=message_type,
                  field_names=list(field_names), output_types=list(output_types),
                  descriptor_source=descriptor_source, message_format=message_format,
                  sanitize=sanitize, name=name)
    return _DecodeProtoOutput(op.outputs[0], op.outputs[1:])


def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://",
                 name=None):
    """Serialized `message_type` protos [batch...] whose field `field_names[j]` holds the
    first `sizes[..., j]` entries of `values[j]` [batch..., n]."""
    return apply_op("EncodeProto", sizes=sizes, values=list(values),
                    field_names=list(field_names), message_type=message_type,
                    descriptor_source=descriptor_source, name=name).outputs[0]
