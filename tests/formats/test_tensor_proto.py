"""make_tensor_proto / make_ndarray follow TensorFlow's storage and dtype rules."""
import ml_dtypes
import numpy as np
import pytest

from trainflow._src.formats.tensor_proto import make_ndarray, make_tensor_proto
from trainflow._src.framework import dtypes
from trainflow._src.protos import tensor_pb2, types_pb2


def _dims(proto):
    return [d.size for d in proto.tensor_shape.dim]


@pytest.mark.parametrize("value, dtype_enum, field", [
    (1.5, types_pb2.DT_FLOAT, "float_val"),
    (3, types_pb2.DT_INT32, "int_val"),
    (2 ** 40, types_pb2.DT_INT64, "int64_val"),
    (2 ** 63, types_pb2.DT_UINT64, "uint64_val"),
    (True, types_pb2.DT_BOOL, "bool_val"),
    (b"x", types_pb2.DT_STRING, "string_val"),
    ("x", types_pb2.DT_STRING, "string_val"),
    (np.float32(2.0), types_pb2.DT_FLOAT, "float_val"),
    (np.int64(5), types_pb2.DT_INT64, "int64_val"),
    (np.float16(1.0), types_pb2.DT_HALF, "half_val"),
])
def test_python_and_numpy_scalars_pick_tf_dtypes(value, dtype_enum, field):
    proto = make_tensor_proto(value)
    assert proto.dtype == dtype_enum
    assert _dims(proto) == []
    assert len(getattr(proto, field)) == 1
    assert not proto.tensor_content


def test_numeric_arrays_use_tensor_content():
    proto = make_tensor_proto([1, 2])
    assert proto.dtype == types_pb2.DT_INT32
    assert proto.tensor_content == b"\x01\x00\x00\x00\x02\x00\x00\x00"
    proto = make_tensor_proto([1, 2 ** 40])
    assert proto.dtype == types_pb2.DT_INT64
    proto = make_tensor_proto(np.array([1.0, 2.0]))  # NumPy float64 stays float64
    assert proto.dtype == types_pb2.DT_DOUBLE
    assert proto.tensor_content == np.array([1.0, 2.0]).tobytes()
    proto = make_tensor_proto(np.array([1, 2], dtype=ml_dtypes.bfloat16))
    assert proto.dtype == types_pb2.DT_BFLOAT16 and proto.tensor_content == b"\x80?\x00@"
    proto = make_tensor_proto([1, 2], dtype=dtypes.float16)
    assert proto.tensor_content == b"\x00<\x00@"


def test_half_val_holds_the_16_bits():
    proto = make_tensor_proto(np.float16(-2.0))
    assert list(proto.half_val) == [0xC000]
    proto = make_tensor_proto(np.array(1.0, dtype=ml_dtypes.bfloat16))
    assert proto.dtype == types_pb2.DT_BFLOAT16 and list(proto.half_val) == [0x3F80]
    assert make_ndarray(proto).dtype == ml_dtypes.bfloat16
    assert float(make_ndarray(proto)) == 1.0


def test_bool_complex_and_strings_use_value_fields():
    proto = make_tensor_proto([True, False])
    assert list(proto.bool_val) == [True, False] and not proto.tensor_content
    proto = make_tensor_proto(np.array([1 + 2j, 3j]))
    assert proto.dtype == types_pb2.DT_COMPLEX128 and list(proto.dcomplex_val) == [1, 2, 0, 3]
    proto = make_tensor_proto(3, dtype=dtypes.complex64)
    assert list(proto.scomplex_val) == [3, 0]
    proto = make_tensor_proto(["a", b"b\x00"])
    assert list(proto.string_val) == [b"a", b"b\x00"] and _dims(proto) == [2]


def test_broadcast_and_shapes():
    proto = make_tensor_proto(1.0, shape=[2, 3])
    assert _dims(proto) == [2, 3] and list(proto.float_val) == [1.0]
    np.testing.assert_array_equal(make_ndarray(proto), np.ones([2, 3], np.float32))
    proto = make_tensor_proto([1.0, 2.0], shape=[2, 2])
    np.testing.assert_array_equal(make_ndarray(proto), [[1, 2], [2, 2]])
    proto = make_tensor_proto(1, shape=[2], allow_broadcast=True)
    assert list(proto.int_val) == [1]
    assert _dims(make_tensor_proto([], shape=[0, 3])) == [0, 3]
    assert _dims(make_tensor_proto([[]])) == [1, 0]
    assert make_tensor_proto([], dtype=dtypes.string).dtype == types_pb2.DT_STRING


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(values=[1.5], dtype=dtypes.int32), TypeError,
     "Expected int32, but got 1.5 of type 'float'."),
    (dict(values="a", dtype=dtypes.float32), TypeError,
     "Expected float32, but got a of type 'str'."),
    (dict(values=[1.0], dtype=dtypes.bool), TypeError,
     "Expected bool, but got 1.0 of type 'float'."),
    (dict(values=[1, 2], dtype=dtypes.qint8), TypeError,
     "Expected qint8, but got 1 of type 'int'."),
    (dict(values=None), ValueError, "None values not supported."),
    (dict(values=[1, 2, 3], shape=[2]), ValueError,
     "Too many elements provided. Takes at most 2, but got 3."),
    (dict(values=[1, 2], shape=[3], verify_shape=True), TypeError,
     "Expected Tensor's shape: (3,), but got (2,)."),
    (dict(values=[1, 2], shape=[2, 2], allow_broadcast=True), TypeError,
     "Expected Tensor's shape: (2, 2), but got (2,)."),
    (dict(values=1, shape=[2], verify_shape=True, allow_broadcast=True), ValueError,
     "allow_broadcast and verify_shape are not both allowed."),
    (dict(values=[1, "a"]), TypeError, "Failed to convert elements of [1, 'a'] to Tensor."),
    (dict(values=[None]), TypeError, "Failed to convert elements of [None] to Tensor."),
    (dict(values=2 ** 64), TypeError, "Failed to convert elements of 18446744073709551616"),
    (dict(values=np.array([1, 2]), dtype=dtypes.string), TypeError,
     "Expected binary or unicode string, got 1"),
])
def test_errors_match_tf(kwargs, error, message):
    with pytest.raises(error) as info:
        make_tensor_proto(**kwargs)
    assert str(info.value).startswith(message)


def test_ragged_lists_are_rejected():
    with pytest.raises(ValueError):
        make_tensor_proto([[1, 2], [3]])
    with pytest.raises(ValueError, match="dense tensor with shape"):
        make_tensor_proto([np.array([1, 2]), np.array([3, 4])], dtype=dtypes.int32)


def test_numpy_values_are_cast_to_the_dtype():
    proto = make_tensor_proto(np.array([1.5, 2.5]), dtype=dtypes.int32)
    np.testing.assert_array_equal(make_ndarray(proto), np.array([1, 2], np.int32))
    assert make_tensor_proto([True], dtype=dtypes.int32).int_val == [1]


def test_tensor_proto_passes_through():
    proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT)
    assert make_tensor_proto(proto) is proto


ROUNDTRIP = [
    np.arange(6, dtype=np.float32).reshape(2, 3),
    np.array([0.0, -0.0, np.inf, -np.inf, 1e-45], np.float32),
    np.array([[1.5]], np.float64),
    np.array([-1, 2, 3], np.int8), np.array([255, 0], np.uint8), np.array([7], np.int16),
    np.array([65535, 1], np.uint16), np.array([2 ** 31 - 1, -2 ** 31], np.int32),
    np.array([-2 ** 63, 2 ** 63 - 1], np.int64), np.array([2 ** 32 - 1], np.uint32),
    np.array([2 ** 64 - 1, 0], np.uint64), np.array([True, False, True]),
    np.array([1 + 2j, -3.5j], np.complex64), np.array([[1 - 1j]], np.complex128),
    np.array([0.5, -2.0, 65504], np.float16), np.array([1.0, -3.0], ml_dtypes.bfloat16),
    np.array(3.25, np.float32), np.zeros([0, 4], np.int32),
    np.array([b"", b"\xff\x00", b"abc"], dtype=object),
]


@pytest.mark.parametrize("array", ROUNDTRIP, ids=lambda a: f"{a.dtype}{list(a.shape)}")
def test_roundtrip(array):
    proto = make_tensor_proto(array)
    again = tensor_pb2.TensorProto.FromString(proto.SerializeToString())
    result = make_ndarray(again)
    assert result.dtype == array.dtype and result.shape == array.shape
    if array.dtype == object:
        assert result.tolist() == array.tolist()
    else:
        assert result.tobytes() == array.tobytes()


def test_quantized_values():
    proto = make_tensor_proto([(1,), (2,)], dtype=dtypes.qint8)
    assert proto.dtype == types_pb2.DT_QINT8 and proto.tensor_content == b"\x01\x02"
    one = make_tensor_proto((3,), dtype=dtypes.quint8)
    assert list(one.int_val) == [3]
    assert make_ndarray(one)["quint8"] == 3


def test_make_ndarray_rejects_bad_protos():
    with pytest.raises(TypeError, match="resource"):
        make_ndarray(tensor_pb2.TensorProto(dtype=types_pb2.DT_RESOURCE))
    too_many = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1, 2, 3, 4])
    too_many.tensor_shape.dim.add(size=3)
    with pytest.raises(ValueError, match="4 values"):
        make_ndarray(too_many)
    short = tensor_pb2.TensorProto(dtype=types_pb2.DT_INT32, tensor_content=b"\x00" * 6)
    short.tensor_shape.dim.add(size=2)
    with pytest.raises(ValueError, match="8 bytes"):
        make_ndarray(short)


def test_make_ndarray_pads_strings_with_the_last_value():
    proto = make_tensor_proto(["a", "b", "c"])
    del proto.string_val[1:]
    assert make_ndarray(proto).tolist() == [b"a", b"a", b"a"]
    assert make_ndarray(make_tensor_proto(b"x")).dtype == object


def test_strings_packed_in_tensor_content_as_tf_cpp_writes_them():
    # TF's C++ side packs a string tensor as every length (varint), then every byte:
    # here [b"ab", b"", 200 * b"z"] (200 needs a two-byte varint).
    proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING)
    proto.tensor_shape.dim.add(size=3)
    proto.tensor_content = b"\x02\x00\xc8\x01" + b"ab" + b"z" * 200
    got = make_ndarray(proto)
    assert got.dtype == object and list(got) == [b"ab", b"", b"z" * 200]
    proto.tensor_content = proto.tensor_content[:-1]
    with pytest.raises(ValueError, match="bytes of strings"):
        make_ndarray(proto)
