"""zeros/ones/fill/*_like, Range, LinSpace, OneHot, meshgrid and sequence_mask:
graph structure, dtype rules, values and errors as TensorFlow 2.21 gives them
(expectations produced by TF in a TF 2.21 environment)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from op_checks import assert_run_error, cases, raises


def _new_ops(g, build):
    before = {o.name for o in g.get_operations()}
    out = build()
    return out, [f"{o.name}:{o.type}" for o in g.get_operations() if o.name not in before]


STRUCTURE = [
    ("zeros_small", lambda x, c: tf.zeros([2, 3]), ["zeros:Const"], "(2, 3)", "float32"),
    ("zeros_dynamic", lambda x, c: tf.zeros(tf.shape(x)),
     ["Shape:Shape", "zeros/Const:Const", "zeros:Fill"], "(?, 3)", "float32"),
    ("zeros_big", lambda x, c: tf.zeros([2000, 3000]),
     ["zeros/shape_as_tensor:Const", "zeros/Const:Const", "zeros:Fill"], "(2000, 3000)",
     "float32"),
    ("ones_small", lambda x, c: tf.ones([2, 3], tf.int32), ["ones:Const"], "(2, 3)", "int32"),
    ("fill", lambda x, c: tf.fill([2, 3], 5.0),
     ["Fill/dims:Const", "Fill/value:Const", "Fill:Fill"], "(2, 3)", "float32"),
    ("zeros_like", lambda x, c: tf.zeros_like(x), ["zeros_like:ZerosLike"], "(?, 3)",
     "float32"),
    ("zeros_like_static", lambda x, c: tf.zeros_like(c), ["zeros_like:Const"], "(2, 3)",
     "float32"),
    ("zeros_like_dtype", lambda x, c: tf.zeros_like(x, dtype=tf.int32),
     ["zeros_like/Shape:Shape", "zeros_like/Const:Const", "zeros_like:Fill"], "(?, 3)",
     "int32"),
    ("ones_like", lambda x, c: tf.ones_like(x),
     ["ones_like/Shape:Shape", "ones_like/Const:Const", "ones_like:Fill"], "(?, 3)", "float32"),
    ("ones_like_static", lambda x, c: tf.ones_like(c),
     ["ones_like/Shape/shape_as_tensor:Const", "ones_like/Const:Const", "ones_like:Fill"],
     "(2, 3)", "float32"),
    ("ones_dynamic_list", lambda x, c: tf.ones([tf.shape(x)[0], 5]),
     ["Shape:Shape", "strided_slice/stack:Const", "strided_slice/stack_1:Const",
      "strided_slice/stack_2:Const", "strided_slice:StridedSlice", "ones/packed/1:Const",
      "ones/packed:Pack", "ones/Const:Const", "ones:Fill"], "(?, 5)", "float32"),
    ("range", lambda x, c: tf.range(5),
     ["range/start:Const", "range/limit:Const", "range/delta:Const", "range:Range"], "(5,)",
     "int32"),
    ("range_float", lambda x, c: tf.range(0., 1., .1),
     ["range/start:Const", "range/limit:Const", "range/delta:Const", "range:Range"], "(10,)",
     "float32"),
    ("range_mixed", lambda x, c: tf.range(0, 1.5, 1),
     ["range/start:Const", "range/limit:Const", "range/delta:Const", "range/Cast:Cast",
      "range/Cast_1:Cast", "range:Range"], "(2,)", "float32"),
    ("range_negative", lambda x, c: tf.range(10, 0, -3), None, "(4,)", "int32"),
    ("range_dynamic", lambda x, c: tf.range(tf.placeholder(tf.int32, [])), None, "(?,)",
     "int32"),
    ("one_hot", lambda x, c: tf.one_hot([0, 2], 3),
     ["one_hot/on_value:Const", "one_hot/off_value:Const", "one_hot/indices:Const",
      "one_hot/depth:Const", "one_hot:OneHot"], "(2, 3)", "float32"),
    ("one_hot_axis0", lambda x, c: tf.one_hot([[1, 2]], 4, axis=0), None, "(4, 1, 2)",
     "float32"),
    ("one_hot_dynamic", lambda x, c: tf.one_hot(tf.placeholder(tf.int32, [None]), 4), None,
     "(?, 4)", "float32"),
    ("sequence_mask", lambda x, c: tf.sequence_mask([1, 2], 3),
     ["SequenceMask/Const:Const", "SequenceMask/Const_1:Const", "SequenceMask/Const_2:Const",
      "SequenceMask/Const_3:Const", "SequenceMask/Range:Range",
      "SequenceMask/ExpandDims/dim:Const", "SequenceMask/ExpandDims:ExpandDims",
      "SequenceMask/Cast:Cast", "SequenceMask/Less:Less"], "(2, 3)", "bool"),
    ("sequence_mask_dynamic", lambda x, c: tf.sequence_mask(tf.placeholder(tf.int32, [None]),
                                                            5), None, "(?, 5)", "bool"),
]


@pytest.mark.parametrize("build,ops,shape,dtype", cases(STRUCTURE))
def test_graph_structure_like_tf(build, ops, shape, dtype):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        c = tf.constant(np.zeros([2, 3], np.float32), name="c")
        out, new = _new_ops(g, lambda: build(x, c))
    if ops is not None:
        assert new == ops
    assert str(out.shape) == shape and out.dtype.name == dtype


GRAPH_ERRORS = [
    ("one_hot_axis", lambda: tf.one_hot([1], 3, axis=-2), ValueError, "axis must be >= -1"),
    ("one_hot_depth", lambda: tf.one_hot([1], -1), ValueError,
     "Dimension size, given by scalar input 1, must be non-negative but is -1"),
    ("one_hot_on_dtype", lambda: tf.one_hot([1], 3, on_value=1.0, dtype=tf.int32), TypeError,
     "dtype <dtype: 'float32'> of on_value does not match dtype parameter <dtype: 'int32'>"),
    ("one_hot_on_off", lambda: tf.one_hot([1], 3, on_value=1.0, off_value=0), TypeError,
     "dtype <dtype: 'float32'> of on_value does not match dtype <dtype: 'int32'> of "
     "off_value"),
    ("fill_negative", lambda: tf.fill([2, -1], 1.0), ValueError,
     "Fill dimensions must be >= 0"),
    ("fill_rank", lambda: tf.fill([[2]], 1.0), ValueError, "Shape must be rank 1 but is rank 2"),
    ("range_delta", lambda: tf.range(0, 5, 0), ValueError, "Requires delta != 0"),
    ("range_order", lambda: tf.range(1.5, 0.5, 0.25), ValueError,
     "Requires start <= limit when delta > 0: 1.5/0.5"),
    ("range_order_int", lambda: tf.range(5, 1), ValueError,
     "Requires start <= limit when delta > 0: 5/1"),
    ("meshgrid_indexing", lambda: tf.meshgrid([1], indexing="zz"), ValueError,
     "Argument `indexing` parameter must be either 'xy' or 'ij', got 'zz'"),
    ("meshgrid_kwarg", lambda: tf.meshgrid([1], foo=1), TypeError,
     "'foo' is an invalid keyword argument for this function"),
]


@pytest.mark.parametrize("build,cls,message", cases(GRAPH_ERRORS))
def test_graph_time_errors(build, cls, message):
    with tf.Graph().as_default():
        with raises(cls, message):
            build()


RUN_ERRORS = [
    ("fill", lambda d: tf.fill(d, 1.0), [np.array([2, -1], np.int32)],
     "Dimension -1 must be >= 0"),
    ("one_hot_depth", lambda d: tf.one_hot([1], d), [np.int32(-1)],
     "depth must be non-negative, got: -1"),
    ("range_delta", lambda d: tf.range(0, 5, d), [np.int32(0)], "Requires delta != 0: 0"),
    ("range_order", lambda limit: tf.range(5, limit), [np.int32(1)],
     "Requires start <= limit when delta > 0: 5/1"),
    ("range_order_float", lambda limit: tf.range(5.5, limit), [np.float32(1.25)],
     "Requires start <= limit when delta > 0: 5.5/1.25"),
]


@pytest.mark.parametrize("build,values,message", cases(RUN_ERRORS))
def test_run_time_errors(build, values, message):
    assert_run_error(build, values, message)


def test_values_bit_exact_with_tf():
    with tf.Graph().as_default():
        outs = [tf.range(0., 1., .1), tf.range(0.5, 3.3, 0.7),
                tf.range(1, 2, 0.3, dtype=tf.float64), tf.linspace(0., 1., 7),
                tf.sequence_mask([1, 3])]
        with tf.Session() as sess:
            got = sess.run(outs)
    f32 = np.float32
    assert got[0].tolist() == [f32(v) for v in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
                                                0.90000004)]
    assert got[1].tolist() == [0.5, 1.2000000476837158, 1.899999976158142, 2.5999999046325684]
    assert got[2].tolist() == [1.0, 1.3, 1.6, 1.9]
    assert got[3].tolist() == [f32(v) for v in (0.0, 0.16666667, 0.33333334, 0.5, 0.6666667,
                                                0.8333334, 1.0)]
    assert got[4].tolist() == [[True, False, False], [True, True, True]]


def test_dtype_rules():
    with tf.Graph().as_default():
        assert tf.range(5).dtype == tf.int32
        assert tf.range(0., 1., .1).dtype == tf.float32
        assert tf.range(tf.constant(3, tf.int64)).dtype == tf.int64
        assert tf.range(3, dtype=tf.float64).dtype == tf.float64
        assert tf.zeros([2], tf.bool).dtype == tf.bool
        assert tf.zeros([2], tf.string).dtype == tf.string
        assert tf.ones([2], "int64").dtype == tf.int64
        assert tf.one_hot([1], 2, on_value=3).dtype == tf.int32
        assert tf.one_hot([1], 2, off_value=np.float64(0)).dtype == tf.float64
        assert tf.ones_like(tf.constant([1, 2]), dtype=tf.float32).dtype == tf.float32
        assert tf.linspace(0., 1., 3).dtype == tf.float32
        assert tf.lin_space is tf.linspace
        with pytest.raises(TypeError):
            tf.linspace(0, 1, 3)


def test_string_and_bool_fills():
    with tf.Graph().as_default():
        outs = [tf.zeros([2], tf.string), tf.zeros([1200], tf.bool), tf.ones([1001], tf.bool),
                tf.zeros_like(tf.placeholder_with_default([b"a", b"b"], [None]))]
        with tf.Session() as sess:
            got = sess.run(outs)
    assert got[0].tolist() == [b"", b""]
    assert not got[1].any() and got[2].all() and got[2].shape == (1001,)
    assert got[3].tolist() == [b"", b""]
