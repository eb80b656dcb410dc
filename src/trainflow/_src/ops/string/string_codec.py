"""Strings in and out of other encodings: EncodeBase64 / DecodeBase64 (web-safe base64,
`tf.encode_base64`, `tf.io.decode_base64`), StringStrip (`tf.string_strip`,
`tf.strings.strip`), SerializeTensor / ParseTensor (a tensor as a TensorProto string,
`tf.serialize_tensor`, `tf.io.parse_tensor`). None is differentiable."""
import base64
import binascii

import numpy as np

from trainflow._src.framework import dtypes, variant_codec
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.shape_util import UNKNOWN, invalid_argument

__all__ = ["decode_base64", "encode_base64", "parse_tensor", "serialize_tensor",
           "string_strip"]


def _map(values, fn):
    arr = np.asarray(values, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = fn(v if isinstance(v, bytes) else str(v).encode())
    return out


def _same_shape(op):
    return [op.inputs[0].shape]


def _encode(input, *, pad):  # noqa: A002 - TF's names
    def one(s):
        out = base64.urlsafe_b64encode(s)
        return out if pad else out.rstrip(b"=")
    return _map(input, one)


def _decode(input):  # noqa: A002
    def one(s):
        if len(s) % 4 == 1:
            raise invalid_argument("Invalid character found in base64.")
        try:
            return base64.b64decode(s + b"=" * (-len(s) % 4), altchars=b"-_", validate=True)
        except (binascii.Error, ValueError) as e:
            raise invalid_argument("Invalid character found in base64.") from e
    return _map(input, one)


register_op("EncodeBase64", inputs=["input: string"], outputs=["output: string"],
            attrs=["pad: bool = false"], shape_fn=_same_shape, kernel=_encode)
register_op("DecodeBase64", inputs=["input: string"], outputs=["output: string"],
            shape_fn=_same_shape, kernel=_decode)
register_op("StringStrip", inputs=["input: string"], outputs=["output: string"],
            shape_fn=_same_shape, kernel=lambda input: _map(input, bytes.strip))  # noqa: A006


def _serialize(tensor, *, T):  # noqa: N803 - TF's attr name
    if T == dtypes.variant:
        return np.array(_variant_proto(tensor).SerializeToString(), dtype=object)
    # lazy: protobuf stays out of import trainflow
    from trainflow._src.formats.tensor_proto import make_tensor_proto
    proto = make_tensor_proto(np.asarray(tensor), dtype=T)
    return np.array(proto.SerializeToString(), dtype=object)


def _parse(serialized, *, out_type):
    # lazy: protobuf stays out of import trainflow
    from trainflow._src.formats.tensor_proto import make_ndarray
    from trainflow._src.protos import tensor_pb2
    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(bytes(np.asarray(serialized, dtype=object).reshape(-1)[0]))
    except Exception as e:  # noqa: BLE001 - any decode failure is TF's error
        raise invalid_argument("Could not parse `serialized` as TensorProto") from e
    if proto.dtype != out_type.as_datatype_enum:
        raise invalid_argument(f"Type mismatch between parsed tensor "
                               f"({dtypes.as_dtype(proto.dtype).name}) and dtype "
                               f"({out_type.name})")
    if out_type == dtypes.variant:
        return _variant_array(proto)
    return make_ndarray(proto)


def _variant_proto(tensor):
    """A DT_VARIANT TensorProto of the variant values in `tensor` (`variant_codec`)."""
    # lazy: protobuf stays out of import trainflow
    from trainflow._src.protos import tensor_pb2, tensor_shape_pb2
    arr = np.asarray(tensor, dtype=object)
    proto = tensor_pb2.TensorProto(dtype=dtypes.variant.as_datatype_enum,
                                   tensor_shape=tensor_shape_pb2.TensorShapeProto(
                                       dim=[{"size": d} for d in arr.shape]))
    for value in arr.reshape(-1):
        type_name, metadata = variant_codec.encode(value)
        proto.variant_val.add(type_name=type_name, metadata=metadata)
    return proto


def _variant_array(proto):
    """The variant values a DT_VARIANT TensorProto holds, as an object array."""
    shape = [d.size for d in proto.tensor_shape.dim]
    if any(d < 0 for d in shape) or int(np.prod(shape)) != len(proto.variant_val):
        raise invalid_argument(f"A variant TensorProto of shape {shape} holds "
                               f"{len(proto.variant_val)} values")
    out = np.empty(len(proto.variant_val), dtype=object)
    for i, v in enumerate(proto.variant_val):
        out[i] = variant_codec.decode(v.type_name, v.metadata)
    return out.reshape(shape)


register_op("SerializeTensor", inputs=["tensor: T"], outputs=["serialized: string"],
            attrs=["T: type"], shape_fn=lambda op: [TensorShape([])], kernel=_serialize)
register_op("ParseTensor", inputs=["serialized: string"], outputs=["output: out_type"],
            attrs=["out_type: type"], shape_fn=lambda op: [UNKNOWN], kernel=_parse)
for _op_type in ("EncodeBase64", "DecodeBase64", "SerializeTensor", "ParseTensor"):
    NotDifferentiable(_op_type)


def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's name
    """Each string in web-safe base64 (- and _ for + and /), `=` padding if `pad`."""
    return apply_op("EncodeBase64", input=input, pad=pad, name=name).outputs[0]


def decode_base64(input, name=None):  # noqa: A002
    """Each web-safe base64 string decoded (padding optional)."""
    return apply_op("DecodeBase64", input=input, name=name).outputs[0]


def string_strip(input, name=None):  # noqa: A002
    """Each string without leading and trailing whitespace."""
    return apply_op("StringStrip", input=input, name=name).outputs[0]


def serialize_tensor(tensor, name=None):
    """A scalar string holding `tensor` as a serialized TensorProto."""
    return apply_op("SerializeTensor", tensor=tensor, name=name).outputs[0]


def parse_tensor(serialized, out_type, name=None):
    """The tensor of dtype `out_type` a serialized TensorProto holds."""
    return apply_op("ParseTensor", serialized=serialized, out_type=dtypes.as_dtype(out_type),
                    name=name).outputs[0]
