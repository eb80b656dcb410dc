import pytest

from trainflow._src.formats.varint import decode_varint, encode_varint
from trainflow._src.protos import tensor_pb2


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**32, 2**64 - 1])
def test_round_trip(value):
    enc = encode_varint(value)
    assert decode_varint(enc + b"tail", 0) == (value, len(enc))


def test_negative_as_protobuf_writes_it():
    # int_val is a repeated int32: protobuf writes -1 as ten bytes of two's complement.
    proto = tensor_pb2.TensorProto(version_number=-1)
    assert proto.SerializeToString() == b"\x18" + encode_varint(-1)
    assert len(encode_varint(-1)) == 10


@pytest.mark.parametrize("buf", [b"\x80\x80", b"\xff" * 11, b""])
def test_truncated_or_overlong(buf):
    with pytest.raises(ValueError, match="varint"):
        decode_varint(buf, 0)


def test_limit():
    enc = encode_varint(300)
    with pytest.raises(ValueError):
        decode_varint(enc, 0, limit=1)
