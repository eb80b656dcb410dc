"""tf.dtypes.experimental (the float8s, float4_e2m1fn, int4/uint4, int2/uint2) against what
TensorFlow 2.21 answered: the DType properties (table below), TensorProto bytes, constants
and their GraphDef values, casts, and checkpoint bytes (tests/framework/data/
dtypes_experimental_tf221.json, written by running tests/helpers/dtypes_experimental_probe.py
under TF 2.21)."""
import json
import math
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

import dtypes_experimental_probe as probe

RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        "dtypes_experimental_tf221.json")

# name: (enum, min, max, is_floating, is_integer, is_unsigned), as TF 2.21 gives them.
PROPERTIES = {
    "float8_e5m2": (24, -57344.0, 57344.0, True, False, False),
    "float8_e4m3fn": (25, -448.0, 448.0, True, False, False),
    "float8_e4m3fnuz": (26, -240.0, 240.0, True, False, False),
    "float8_e4m3b11fnuz": (27, -30.0, 30.0, True, False, False),
    "float8_e5m2fnuz": (28, -57344.0, 57344.0, True, False, False),
    "int4": (29, -8, 7, False, True, False),
    "uint4": (30, 0, 15, False, True, True),
    "int2": (31, -2, 1, False, True, False),
    "uint2": (32, 0, 3, False, True, True),
    "float4_e2m1fn": (33, -6.0, 6.0, True, False, False),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    # Through JSON, as the recorded answers went (tuples become lists).
    return json.loads(json.dumps(probe.probe(tf, str(tmp_path_factory.mktemp("ckpt")))))


@pytest.fixture(scope="module")
def recorded():
    with open(RECORDED) as f:
        return json.load(f)


@pytest.mark.parametrize("name", sorted(PROPERTIES))
def test_properties(name):
    enum, lo, hi, floating, integer, unsigned = PROPERTIES[name]
    d = getattr(tf.dtypes.experimental, name)
    assert (d.as_datatype_enum, d.name, d.size, repr(d)) == (enum, name, 1, f"tf.{name}")
    assert (float(d.min), float(d.max)) == (lo, hi)
    assert (d.is_floating, d.is_integer, d.is_unsigned, d.is_quantized) == \
        (floating, integer, unsigned, False)
    assert tf.as_dtype(enum) is d and tf.as_dtype(name) is d
    assert tf.as_dtype(np.dtype(d.as_numpy_dtype)) is d
    assert d.as_numpy_dtype.__name__ == name  # ml_dtypes' type of the same name
    assert tf.as_dtype(enum + 100).name == name + "_ref"
    with pytest.raises(ValueError, match="does not have defined limits"):
        d.limits
    assert not hasattr(tf, name)  # TF keeps them under dtypes.experimental only


@pytest.mark.parametrize("name", probe.NAMES)
@pytest.mark.parametrize("part", ["properties", "protos", "proto_values", "graph"])
def test_matches_recorded_tf(results, recorded, name, part):
    assert results[name][part] == recorded[name][part]


@pytest.mark.parametrize("key", sorted(json.load(open(RECORDED))["casts"]))
def test_casts_match_recorded_tf(results, recorded, key):
    assert results["casts"][key] == recorded["casts"][key]


def test_checkpoint_bytes_match_recorded_tf(results, recorded):
    assert results["checkpoint_data"] == recorded["checkpoint_data"]
    assert results["checkpoint_values"] == recorded["checkpoint_values"]


# tf.make_tensor_proto as TF writes it (text of TF 2.21's protos).
@pytest.mark.parametrize("dtype, values, field, stored", [
    ("float8_e4m3fn", [1.0, -1.0, 0.5, 1.5], "tensor_content", b"8\xb80<"),
    ("float8_e4m3fn", [1.0], "float8_val", b"8"),
    ("float8_e5m2", [1.0, -1.0, 0.5, 1.5], "tensor_content", b"<\xbc8>"),
    ("float8_e5m2", [1.0], "float8_val", b"<"),
    ("float4_e2m1fn", [1.0, -1.0, 0.5, 1.5], "tensor_content", b"\x02\n\x01\x03"),
    ("float8_e4m3fnuz", [1.0, -1.0, 0.5, 1.5], "tensor_content", b"@\xc08D"),
    ("int4", [1, 0, -1, 1], "int_val", [1, 0, -1, 1]),
    ("uint2", [3], "int_val", [3]),
])
def test_make_tensor_proto_fields(dtype, values, field, stored):
    d = getattr(tf.dtypes.experimental, dtype)
    proto = tf.make_tensor_proto(np.array(values, np.float32).astype(d.as_numpy_dtype))
    assert proto.dtype == d.as_datatype_enum
    got = getattr(proto, field)
    assert (got if isinstance(got, bytes) else list(got)) == stored
    assert tf.make_ndarray(proto).astype(np.float32).tolist() == values


@pytest.mark.parametrize("dtype", ["float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz"])
def test_fnuz_single_values_have_no_proto_field(dtype):
    d = getattr(tf.dtypes.experimental, dtype)
    with pytest.raises(TypeError, match=f"Element type not supported in TensorProto: {dtype}"):
        tf.make_tensor_proto(np.ones(1, d.as_numpy_dtype))
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Element type not supported"):
            tf.constant(1.5, d)
        assert tf.constant([1.5, 2.0], d).dtype == d


def test_int4_tensor_content_is_sign_extended_bytes():
    # What TF's C++ writes for an int4 tensor_content: one int8 per element.
    proto = tf.make_tensor_proto(np.zeros(3, np.int8))
    proto.dtype = tf.dtypes.experimental.int4.as_datatype_enum
    proto.tensor_content = bytes([0x01, 0xff, 0xf8])
    assert tf.make_ndarray(proto).astype(np.int32).tolist() == [1, -1, -8]


def test_cast_rounds_like_tf():
    # Round to nearest even; e4m3fn has no infinity (overflow is NaN), e5m2 has.
    values = [0.3, 1000.0, float("inf"), 3.1415]
    with tf.Graph().as_default():
        x = tf.constant(values)
        e4 = tf.cast(tf.cast(x, tf.dtypes.experimental.float8_e4m3fn), tf.float32)
        e5 = tf.cast(tf.cast(x, tf.dtypes.experimental.float8_e5m2), tf.float32)
        with tf.Session() as sess:
            got4, got5 = sess.run([e4, e5])
    assert got4[0] == 0.3125 and math.isnan(got4[1]) and math.isnan(got4[2])
    assert got4[3] == 3.25
    assert got5.tolist() == [0.3125, 1024.0, float("inf"), 3.0]


def test_arithmetic_rejects_float8_as_tf_does():
    d = tf.dtypes.experimental.float8_e4m3fn
    with tf.Graph().as_default():
        x = tf.constant([1.5, 2.0], d)
        with pytest.raises(TypeError, match="has DataType float8_e4m3fn not in list of "
                                            "allowed values"):
            tf.add(x, x)


def test_variables_of_every_new_dtype_save_and_restore(tmp_path):
    for name in probe.NAMES:
        d = getattr(tf.dtypes.experimental, name)
        start = np.array([1, 0, 1, 1], np.float32).astype(d.as_numpy_dtype)
        with tf.Graph().as_default():
            v = tf.Variable(start, name="v")
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(v.initializer)
                prefix = saver.save(sess, str(tmp_path / name))
                sess.run(v.assign(np.zeros(4, d.as_numpy_dtype)))
                saver.restore(sess, prefix)
                assert sess.run(v).astype(np.float32).tolist() == [1, 0, 1, 1]
        reader = tf.train.NewCheckpointReader(prefix)
        assert reader.get_variable_to_dtype_map()["v"] == d


def test_unknown_enum_is_still_a_type_error():
    with pytest.raises(TypeError):
        tf.as_dtype(34)
    with pytest.raises(errors.UnimplementedError):
        with tf.Graph().as_default():
            tf.Session().run(tf.cast(tf.constant(["a"]), tf.dtypes.experimental.int4))


@pytest.mark.parametrize("name", probe.NAMES)
def test_tf_experimental_shows_the_same_objects(name):
    assert getattr(tf.experimental, name) is getattr(tf.dtypes.experimental, name)


@pytest.mark.parametrize("jit", [False, True])
def test_feeds_and_casts_on_both_backends(jit):
    # TF 2.21 gives [3.5, 6.5] for the fed float8 and [1.625, 2048, 15] (+1) for the casts.
    if jit:
        pytest.importorskip("jax")
    config = tf.ConfigProto()
    if jit:
        config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_2
    e = tf.dtypes.experimental
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        p8 = tf.placeholder(e.float8_e4m3fn, [None])
        y = tf.cast(tf.cast(x * 2.0, e.float8_e5m2), tf.float32) + 1.0
        z = tf.cast(p8, tf.float32) * 2.0
        with tf.Session(config=config) as sess:
            got_y, got_z = sess.run([y, z], {x: [0.3, 1000.0, 7.1], p8: [1.7, 3.3]})
    assert got_y.tolist() == [1.625, 2049.0, 15.0] and got_z.tolist() == [3.5, 6.5]


@pytest.mark.parametrize("key", sorted(json.load(open(RECORDED))["ops"]))
def test_array_ops_match_recorded_tf(results, recorded, key):
    want, got = recorded["ops"][key], results["ops"][key]
    if want == "TypeError":  # the op's type list leaves the dtype out, in both
        assert got == "TypeError"
    elif isinstance(want, str):  # TF's CPU lacks the kernel; trainflow runs it
        assert not isinstance(got, str)
    else:
        assert got == want


@pytest.mark.parametrize("dtype, limits", [
    (tf.bool, (0, True)), (tf.float32, (0, 1)), (tf.float64, (0, 1)), (tf.int8, (0, 127)),
    (tf.uint64, (0, 2**64 - 1)), (tf.int64, (0, 2**63 - 1)), (tf.uint16, (0, 65535)),
    (tf.float16, ValueError), (tf.bfloat16, ValueError), (tf.complex64, ValueError),
    (tf.string, ValueError),
])
def test_limits_are_tfs_intensity_ranges(dtype, limits):
    # DType.limits as TF 2.21 gives it (the negative side clipped to 0).
    if limits is ValueError:
        with pytest.raises(ValueError, match=f"<dtype: '{dtype.name}'> does not have defined"):
            dtype.limits
    else:
        assert dtype.limits == limits and type(dtype.limits[0]) is int
