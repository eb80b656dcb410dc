"""RecvTensor's response framed by hand around an array's own buffer, and parsed back
into an array that views the received bytes.

A tensor of several megabytes passes through protobuf's Python API with about four
copies each way (bytes of the array, the message's own copy, serialization, the
field's bytes on reading). The bytes written here are what protobuf writes for the
same RecvTensorResponse (fields in number order, TensorProto with raw
`tensor_content`), so TensorFlow's workers read them and send us the same layout;
anything else a peer sends (typed `*_val` fields, strings) is parsed by protobuf.
"""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.formats import tensor_proto as _tensor_proto
from trainflow._src.formats.varint import decode_varint, encode_varint
from trainflow._src.protos import tensor_pb2, tensor_shape_pb2, worker_pb2

_LEN, _VARINT, _I64, _I32 = 2, 0, 1, 5
_DT_STRING = 7


class RecvTensorReply:
    """A RecvTensorResponse as worker code uses it: the value (an ndarray, None when
    dead), whether it is dead, and the sender's send_start_micros."""

    __slots__ = ("value", "is_dead", "send_start_micros")

    def __init__(self, value, is_dead=False, send_start_micros=0):
        self.value = value
        self.is_dead = is_dead
        self.send_start_micros = send_start_micros


def _skip(buf, pos, wire_type):
    if wire_type == _VARINT:
        return decode_varint(buf, pos)[1]
    if wire_type == _I64:
        return pos + 8
    if wire_type == _I32:
        return pos + 4
    if wire_type == _LEN:
        n, pos = decode_varint(buf, pos)
        return pos + n
    raise ValueError(f"unsupported wire type {wire_type}")


def tensor_chunks(value):
    """The serialized TensorProto of `value` as a list of bytes-like chunks (the raw
    content chunk views the array's buffer: no copy yet)."""
    arr = np.asarray(value)
    if arr.dtype.kind in "OSUV":
        return [_tensor_proto.make_tensor_proto(arr).SerializeToString()]
    head = bytearray(b"\x08")
    head += encode_varint(dtypes.as_dtype(arr.dtype).as_datatype_enum)
    if arr.ndim:
        shape = tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in arr.shape])
        shape_bytes = shape.SerializeToString()
        head += b"\x12" + encode_varint(len(shape_bytes)) + shape_bytes
    if not arr.size:
        return [bytes(head)]
    content = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    head += b"\x22" + encode_varint(content.size)
    return [bytes(head), content]


def encode_recv_tensor_response(reply):
    """The wire bytes of a RecvTensorReply (or of a RecvTensorResponse proto)."""
    if isinstance(reply, worker_pb2.RecvTensorResponse):
        return reply.SerializeToString()
    chunks = []
    if not reply.is_dead and reply.value is not None:
        tensor = tensor_chunks(reply.value)
        size = sum(len(c) if isinstance(c, bytes) else c.nbytes for c in tensor)
        chunks.append(b"\x0a" + encode_varint(size))
        chunks.extend(tensor)
    tail = b""
    if reply.is_dead:
        tail += b"\x10\x01"
    if reply.send_start_micros:
        tail += b"\x18" + encode_varint(reply.send_start_micros)
    chunks.append(tail)
    return b"".join(chunks)


def decode_tensor(buf, start, end):
    """The ndarray of the TensorProto at buf[start:end]. Raw numeric content comes back
    as a read-only array viewing `buf`; other layouts go through protobuf."""
    pos = start
    dtype_enum = 0
    dims = ()
    content = None
    while pos < end:
        tag, pos = decode_varint(buf, pos)
        field, wire_type = tag >> 3, tag & 7
        if field == 1 and wire_type == _VARINT:
            dtype_enum, pos = decode_varint(buf, pos)
        elif field == 2 and wire_type == _LEN:
            n, pos = decode_varint(buf, pos)
            shape = tensor_shape_pb2.TensorShapeProto.FromString(bytes(buf[pos:pos + n]))
            if shape.unknown_rank:
                return _slow_tensor(buf, start, end)
            dims = tuple(d.size for d in shape.dim)
            pos += n
        elif field == 3 and wire_type == _VARINT:
            pos = decode_varint(buf, pos)[1]  # version_number
        elif field == 4 and wire_type == _LEN:
            n, pos = decode_varint(buf, pos)
            content = (pos, n)
            pos += n
        else:
            return _slow_tensor(buf, start, end)
    if pos != end or dtype_enum == _DT_STRING or dtype_enum == 0:
        return _slow_tensor(buf, start, end)
    np_dtype = np.dtype(dtypes.as_dtype(dtype_enum).as_numpy_dtype)
    count = int(np.prod(dims, dtype=np.int64))
    if content is None:
        if count:
            return _slow_tensor(buf, start, end)
        return np.zeros(dims, np_dtype)
    if content[1] != count * np_dtype.itemsize:
        return _slow_tensor(buf, start, end)
    return np.frombuffer(buf, dtype=np_dtype, count=count, offset=content[0]).reshape(dims)


def _slow_tensor(buf, start, end):
    proto = tensor_pb2.TensorProto.FromString(bytes(buf[start:end]))
    return np.array(_tensor_proto.make_ndarray(proto))


def decode_recv_tensor_response(data):
    """The RecvTensorReply of RecvTensorResponse wire bytes."""
    pos, end = 0, len(data)
    tensor = None
    is_dead = False
    micros = 0
    while pos < end:
        tag, pos = decode_varint(data, pos)
        field, wire_type = tag >> 3, tag & 7
        if field == 1 and wire_type == _LEN:
            n, pos = decode_varint(data, pos)
            tensor = (pos, pos + n)
            pos += n
        elif field == 2 and wire_type == _VARINT:
            v, pos = decode_varint(data, pos)
            is_dead = bool(v)
        elif field == 3 and wire_type == _VARINT:
            micros, pos = decode_varint(data, pos)
            if micros >= 1 << 63:
                micros -= 1 << 64
        else:
            pos = _skip(data, pos, wire_type)
    if pos != end:
        raise ValueError("truncated RecvTensorResponse")
    value = None
    if not is_dead:
        value = decode_tensor(data, *tensor) if tensor is not None else \
            _slow_tensor(data, 0, 0)
    return RecvTensorReply(value, is_dead, micros)
