"""SparseTensors as one tensor of 3 components: SerializeSparse, SerializeManySparse
(`tf.io.serialize_sparse` / `serialize_many_sparse`) and DeserializeSparse.

With `out_type=variant` (how tf.data carries a SparseTensor component) a serialized
sparse tensor is a [3] object array holding the indices, values and dense shape arrays;
with `out_type=string` each of the three is a serialized TensorProto. SerializeManySparse
splits along the first dimension ([N, 3]); DeserializeSparse joins any [..., 3] array back
into one SparseTensor whose leading dimensions are the array's and whose other dimensions
are the largest of the parts'.
"""
import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.shape_util import dims_of

__all__ = ["deserialize_many_sparse", "deserialize_sparse", "serialize_many_sparse",
           "serialize_sparse"]


def _pack(indices, values, shape, out_type):
    out = np.empty(3, dtype=object)
    parts = (np.asarray(indices, np.int64), np.asarray(values), np.asarray(shape, np.int64))
    if out_type == dtypes.variant:
        for i, part in enumerate(parts):
            out[i] = part
        return out
    for i, part in enumerate(parts):
        out[i] = _content_proto(part).SerializeToString()
    return out


def _varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _content_proto(array):
    """The TensorProto TensorFlow's AsProtoTensorContent writes: every element in
    `tensor_content`, little-endian numbers or varint lengths followed by the strings."""
    # lazy: protobuf stays out of import trainflow
    from trainflow._src.formats.tensor_proto import make_tensor_proto
    if array.dtype.kind in "OSU":
        items = [x if isinstance(x, bytes) else str(x).encode() for x in array.reshape(-1)]
        proto = make_tensor_proto(np.zeros(array.shape, np.int8))
        proto.dtype = dtypes.string.as_datatype_enum
        proto.ClearField("int_val")
        proto.ClearField("tensor_content")
        proto.tensor_content = b"".join(_varint(len(x)) for x in items) + b"".join(items)
        return proto
    proto = make_tensor_proto(np.zeros((), array.dtype))
    proto.ClearField("tensor_content")
    for field in ("float_val", "double_val", "int_val", "int64_val", "bool_val",
                  "half_val", "uint32_val", "uint64_val", "scomplex_val", "dcomplex_val"):
        proto.ClearField(field)
    proto.tensor_shape.CopyFrom(make_tensor_proto(np.zeros(array.shape, np.int8)).tensor_shape)
    proto.tensor_content = np.ascontiguousarray(
        array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto


def _unpack(triple, dtype):
    if all(isinstance(p, np.ndarray) for p in triple):
        return triple[0], triple[1], triple[2]
    # lazy: protobuf stays out of import trainflow
    from trainflow._src.formats.tensor_proto import make_ndarray
    from trainflow._src.protos import tensor_pb2
    parts = []
    for blob in triple:
        proto = tensor_pb2.TensorProto()
        proto.ParseFromString(bytes(blob))
        parts.append(make_ndarray(proto))
    values = parts[1]
    if dtype is not None and values.dtype != np.dtype(dtype.as_numpy_dtype):
        raise errors.InvalidArgumentError(
            None, None, f"Requested SparseTensor of type {dtype.name} but "
                        f"SparseTensor[0].values.dtype() == {values.dtype}")
    return parts[0], values, parts[2]


def _serialize(sparse_indices, sparse_values, sparse_shape, *, T, out_type):  # noqa: N803
    return _pack(sparse_indices, sparse_values, sparse_shape, out_type)


def _serialize_many(sparse_indices, sparse_values, sparse_shape, *, T, out_type):  # noqa: N803
    indices = np.asarray(sparse_indices, np.int64).reshape(-1, len(sparse_shape))
    values, shape = np.asarray(sparse_values), np.asarray(sparse_shape, np.int64)
    if shape.size < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Rank of input SparseTensor should be > 1, but saw rank: {shape.size}")
    out = np.empty((int(shape[0]), 3), dtype=object)
    for row in range(int(shape[0])):
        keep = indices[:, 0] == row
        out[row] = _pack(indices[keep, 1:], values[keep], shape[1:], out_type)
    return out


def _deserialize(serialized_sparse, *, dtype, Tserialized):  # noqa: N803
    serialized = np.asarray(serialized_sparse, dtype=object)
    if serialized.ndim == 0 or serialized.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None, None, f"Serialized sparse should have 3 as the last dimension "
                        f"{list(serialized.shape)}")
    if serialized.ndim == 1:
        return _unpack(serialized, dtype)
    lead = serialized.shape[:-1]
    parts = [_unpack(t, dtype) for t in serialized.reshape(-1, 3)]
    ranks = {p[2].size for p in parts}
    if len(ranks) > 1:
        raise errors.InvalidArgumentError(
            None, None, "Inconsistent shape across SparseTensors: rank prior to "
                        f"SparseTensor[{len(parts) - 1}] was: {min(ranks)} but rank of "
                        f"SparseTensor[{len(parts) - 1}] is: {max(ranks)}")
    rank = ranks.pop() if ranks else 0
    dense = np.max([p[2] for p in parts], axis=0) if parts else np.zeros(rank, np.int64)
    indices, values = [], []
    for n, (idx, vals, _) in enumerate(parts):
        prefix = np.asarray(np.unravel_index(n, lead), np.int64)
        idx = np.asarray(idx, np.int64).reshape(-1, rank)
        indices.append(np.concatenate([np.broadcast_to(prefix, (len(idx), len(lead))), idx],
                                      axis=1))
        values.append(np.asarray(vals))
    out_dtype = np.dtype(dtype.as_numpy_dtype)
    return (np.concatenate(indices).astype(np.int64) if indices
            else np.zeros((0, len(lead) + rank), np.int64),
            np.concatenate(values).astype(out_dtype) if values else np.zeros(0, out_dtype),
            np.concatenate([np.asarray(lead, np.int64), dense]).astype(np.int64))


def _deserialize_many(serialized_sparse, *, dtype):
    serialized = np.asarray(serialized_sparse, dtype=object)
    if serialized.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"Serialized sparse should be a matrix but received shape "
                        f"{list(serialized.shape)}")
    if serialized.shape[1] != 3:
        raise errors.InvalidArgumentError(
            None, None, f"Serialized sparse should have 3 columns but received shape "
                        f"{list(serialized.shape)}")
    return _deserialize(serialized, dtype=dtype, Tserialized=dtypes.string)


def _deserialize_many_shape(op):
    dims = dims_of(op.inputs[0])
    if dims is not None:
        if len(dims) != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {len(dims)} for '{op.name}'")
        if dims[1] is not None and dims[1] != 3:
            raise ValueError(f"Dimension must be 3 but is {dims[1]} for '{op.name}'")
    return _deserialize_shape(op)


def _serialize_shape(op):
    return [TensorShape([3])]


def _serialize_many_shape(op):
    return [TensorShape([None, 3])]


def _deserialize_shape(op):
    return [TensorShape([None, None]), TensorShape([None]), TensorShape([None])]


_SERIALIZE = dict(inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
                  outputs=["serialized_sparse: out_type"],
                  attrs=["T: type", "out_type: {string, variant} = DT_STRING"])
register_op("SerializeSparse", shape_fn=_serialize_shape, kernel=_serialize, **_SERIALIZE)
register_op("SerializeManySparse", shape_fn=_serialize_many_shape, kernel=_serialize_many,
            **_SERIALIZE)
register_op("DeserializeSparse", inputs=["serialized_sparse: Tserialized"],
            outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
            attrs=["dtype: type", "Tserialized: {string, variant} = DT_STRING"],
            shape_fn=_deserialize_shape, kernel=_deserialize)
register_op("DeserializeManySparse", inputs=["serialized_sparse: string"],
            outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
            attrs=["dtype: type"], shape_fn=_deserialize_many_shape, kernel=_deserialize_many)
for _name in ("SerializeSparse", "SerializeManySparse", "DeserializeSparse",
              "DeserializeManySparse"):
    NotDifferentiable(_name)


def serialize_sparse(sp_input, name=None, out_type=dtypes.string):
    """`sp_input` as a [3] tensor of `out_type` (string or variant)."""
    return apply_op("SerializeSparse", sparse_indices=sp_input.indices,
                    sparse_values=sp_input.values, sparse_shape=sp_input.dense_shape,
                    out_type=dtypes.as_dtype(out_type), name=name).outputs[0]


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string):
    """`sp_input` (rank >= 2) as an [N, 3] tensor, one row per slice of its first axis."""
    return apply_op("SerializeManySparse", sparse_indices=sp_input.indices,
                    sparse_values=sp_input.values, sparse_shape=sp_input.dense_shape,
                    out_type=dtypes.as_dtype(out_type), name=name).outputs[0]


def deserialize_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor of a [..., 3] serialized tensor; `rank` (if known) is its rank."""
    op = apply_op("DeserializeSparse", serialized_sparse=serialized_sparse,
                  dtype=dtypes.as_dtype(dtype), name=name)
    indices, values, shape = op.outputs
    if rank is not None:
        indices.set_shape([None, rank])
        shape.set_shape([rank])
    return SparseTensor(indices, values, shape)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor of an [N, 3] string tensor of serialized SparseTensors (as
    `serialize_many_sparse` writes them), N its first dimension."""
    indices, values, dense_shape = apply_op("DeserializeManySparse",
                                            serialized_sparse=serialized_sparse,
                                            dtype=dtypes.as_dtype(dtype), name=name).outputs
    indices.set_shape([None, rank])
    dense_shape.set_shape([rank])
    return SparseTensor(indices, values, dense_shape)
