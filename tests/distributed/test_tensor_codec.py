"""RecvTensorResponse framed by hand: the same bytes protobuf writes, parsed back into
arrays that view the received buffer; other layouts go through protobuf."""
import ml_dtypes
import numpy as np
import pytest

from trainflow._src.distributed import tensor_codec, wire
from trainflow._src.formats import tensor_proto
from trainflow._src.protos import worker_pb2

VALUES = [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.array([[1, -2]], dtype=np.int64),
    np.array(7, dtype=np.int32),
    np.float64(2.5),
    np.zeros((0, 3), dtype=np.float32),
    np.array([True, False]),
    np.array([1 + 2j], dtype=np.complex64),
    np.array([1.5, -2], dtype=np.float16),
    np.array([1.5, 3], dtype=ml_dtypes.bfloat16),
    np.arange(6, dtype=np.uint8).reshape(1, 2, 3),
    np.arange(8, dtype=np.float32).reshape(2, 4)[:, ::2],  # not contiguous
    np.array([b"ab", b""], dtype=object),
]


def _proto_bytes(value, is_dead=False, micros=0):
    resp = worker_pb2.RecvTensorResponse(is_dead=is_dead, send_start_micros=micros)
    if not is_dead:
        wire.to_tensor_proto(value, resp.tensor)
    return resp.SerializeToString()


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{np.asarray(v).dtype}{np.shape(v)}")
def test_same_bytes_as_protobuf_and_back(value):
    data = tensor_codec.encode_recv_tensor_response(
        tensor_codec.RecvTensorReply(value, False, 1234567))
    assert data == _proto_bytes(value, micros=1234567)
    reply = tensor_codec.decode_recv_tensor_response(data)
    assert (reply.is_dead, reply.send_start_micros) == (False, 1234567)
    assert reply.value.dtype == np.asarray(value).dtype
    assert reply.value.shape == np.shape(value)
    np.testing.assert_array_equal(reply.value, value)


def test_raw_content_is_viewed_not_copied():
    value = np.arange(1000, dtype=np.float32).reshape(10, 100)
    data = tensor_codec.encode_recv_tensor_response(tensor_codec.RecvTensorReply(value))
    got = tensor_codec.decode_recv_tensor_response(data).value
    assert not got.flags.owndata and not got.flags.writeable
    np.testing.assert_array_equal(got, value)


def test_dead_tensor():
    data = tensor_codec.encode_recv_tensor_response(
        tensor_codec.RecvTensorReply(None, True, 5))
    assert data == _proto_bytes(None, is_dead=True, micros=5)
    reply = tensor_codec.decode_recv_tensor_response(data)
    assert (reply.value, reply.is_dead, reply.send_start_micros) == (None, True, 5)


@pytest.mark.parametrize("value,dtype", [
    (3.5, np.float32),              # one value: float_val, not tensor_content
    ([1, 2, 3], np.int32),          # TF writes small int tensors as raw content too
    ([[1.0, 1.0], [1.0, 1.0]], np.float32),
    (["x", "yz"], None),
])
def test_protobuf_layouts_from_other_senders(value, dtype):
    resp = worker_pb2.RecvTensorResponse(require_ack=True, send_start_micros=9)
    resp.tensor.CopyFrom(tensor_proto.make_tensor_proto(value, dtype=dtype))
    resp.transport_options.type_url = "type.googleapis.com/x"
    reply = tensor_codec.decode_recv_tensor_response(resp.SerializeToString())
    expected = tensor_proto.make_ndarray(resp.tensor)
    assert reply.value.dtype == expected.dtype
    np.testing.assert_array_equal(reply.value, expected)
    assert reply.send_start_micros == 9


def test_proto_replies_pass_through():
    resp = worker_pb2.RecvTensorResponse(is_dead=True)
    assert tensor_codec.encode_recv_tensor_response(resp) == resp.SerializeToString()


def test_truncated_message_raises():
    data = tensor_codec.encode_recv_tensor_response(
        tensor_codec.RecvTensorReply(np.ones(4, np.float32)))
    with pytest.raises((ValueError, IndexError)):
        tensor_codec.decode_recv_tensor_response(data[:-3])
