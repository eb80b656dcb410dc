"""tf.get_variable / tf.variable_scope (ops/variable_scope.py, ops/variable_store.py) and
partitioned variables (ops/partitioned_variables.py)."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.dtypes import float64_ref, int64_ref

from fixture_paths import FIXTURES


def test_scope_and_name_scope_interaction():
    with tf.Graph().as_default():
        with tf.variable_scope("foo") as vs:
            w = tf.get_variable("w", [1])
            c = tf.constant(1.0, name="c")
        with tf.variable_scope(vs):
            w2 = tf.get_variable("w2", [1])
            c2 = tf.constant(1.0, name="c")
        with tf.variable_scope("foo", reuse=True):
            w3 = tf.get_variable("w", [1])
            c3 = tf.constant(1.0, name="c")
        assert (w.name, c.name, w2.name, c2.name, c3.name) == \
            ("foo/w:0", "foo/c:0", "foo/w2:0", "foo_1/c:0", "foo_2/c:0")
        assert w3 is w and vs.original_name_scope == "foo/" and vs.name == "foo"
        with tf.name_scope("ns"):
            with tf.variable_scope("vs2"):
                x = tf.get_variable("x", [1])
                cx = tf.constant(1.0, name="c")
                y = tf.Variable(1.0, name="y")
        assert (x.name, cx.name, y.name) == ("vs2/x:0", "ns/vs2/c:0", "ns/vs2/y:0")
        with tf.variable_scope("aux", auxiliary_name_scope=False):
            q = tf.get_variable("q", [1])
            cq = tf.constant(1.0, name="c")
        assert (q.name, cq.name) == ("aux/q:0", "c:0")
        assert tf.get_variable_scope().name == ""


def test_default_name_uniquification():
    with tf.Graph().as_default():
        names = []
        for _ in range(2):
            with tf.variable_scope(None, default_name="bar"):
                names.append((tf.get_variable("a", [1]).name, tf.constant(1.0, name="c").name))
        assert names == [("bar/a:0", "bar/c:0"), ("bar_1/a:0", "bar_1/c:0")]
        with tf.variable_scope("outer"):
            with tf.variable_scope(None, default_name="bar"):
                assert tf.get_variable_scope().name == "outer/bar"
        with pytest.raises(ValueError, match="reuse=True cannot be used without a name"):
            with tf.variable_scope(None, default_name="x", reuse=True):
                pass
        with pytest.raises(TypeError, match="If default_name is None then name_or_scope is "
                                            "required"):
            tf.variable_scope(None)


def test_reuse_rules_and_messages():
    with tf.Graph().as_default():
        w = tf.get_variable("w", [2])
        with pytest.raises(ValueError, match=r"Variable w already exists, disallowed\. Did you "
                                             r"mean to set reuse=True or reuse=tf\.AUTO_REUSE "
                                             r"in VarScope\? Originally defined at:"):
            tf.get_variable("w", [2])
        with tf.variable_scope("", reuse=True):
            assert tf.get_variable("w", [2]) is w
            assert tf.get_variable("w") is w
            with pytest.raises(ValueError, match=r"Trying to share variable w, but specified "
                                                 r"shape \(3,\) and found shape \(2,\)\."):
                tf.get_variable("w", [3])
            with pytest.raises(ValueError, match="Trying to share variable w, but specified "
                                                 "dtype int32 and found dtype float32_ref."):
                tf.get_variable("w", [2], dtype=tf.int32)
            with pytest.raises(ValueError, match=r"Variable nope does not exist, or was not "
                                                 r"created with tf\.get_variable\(\)\. Did you "
                                                 r"mean to set reuse=tf\.AUTO_REUSE in "
                                                 r"VarScope\?"):
                tf.get_variable("nope", [2])
            with tf.variable_scope("inner", reuse=False):  # False inherits reuse
                assert tf.get_variable_scope().reuse is True
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            z = tf.get_variable("z", [2])
            assert tf.get_variable("z", [2]) is z
        with tf.variable_scope("later") as scope:
            a = tf.get_variable("a", [1])
            scope.reuse_variables()
            assert tf.get_variable("a", [1]) is a
        with pytest.raises(ValueError, match="The reuse parameter must be True or False or "
                                             "None"):
            tf.variable_scope("x", reuse="yes")


def test_bad_get_variable_arguments():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Variable v did not get an initializer, so its "
                                             "`shape` argument must be specified."):
            tf.get_variable("v")
        with pytest.raises(ValueError, match="An initializer for variable v3 of <dtype: "
                                             "'complex64'> is required"):
            tf.get_variable("v3", [2], dtype=tf.complex64)
        with pytest.raises(ValueError, match="If initializer is a constant, do not specify "
                                             "shape."):
            tf.get_variable("v4", [2], initializer=[1.0, 2.0])
        with pytest.raises(ValueError, match="The initializer passed is not valid"):
            tf.get_variable("v5", [None, 2])
        with pytest.raises(ValueError, match="Initializer type '<dtype: 'int32'>' and explicit "
                                             "dtype '<dtype: 'float32'>' don't match."):
            tf.get_variable("v6", initializer=tf.constant([1, 2]), dtype=tf.float32)


def test_default_initializers_and_value_initializers():
    with tf.Graph().as_default() as g:
        i = tf.get_variable("i", [2], dtype=tf.int32)
        flag = tf.get_variable("flag", [], dtype=tf.bool)
        w = tf.get_variable("w", [3, 4])
        plain = tf.get_variable("plain", initializer=[1.0, 2.0])
        from_tensor = tf.get_variable("t", initializer=tf.constant([[1, 2]], tf.int64))
        lazy = tf.get_variable("lazy", initializer=lambda: tf.ones([2]))
        cls_init = tf.get_variable("cls", [2], initializer=tf.ones_initializer)
        names = {op.name for op in g.get_operations()}
        assert "i/Initializer/zeros" in names and "plain/initial_value" in names
        assert "w/Initializer/random_uniform/RandomUniform" in names
        assert from_tensor.dtype == int64_ref and from_tensor.shape.as_list() == [1, 2]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(i), [0, 0])
            assert not sess.run(flag)
            assert np.abs(sess.run(w)).max() <= np.sqrt(6.0 / 7)
            np.testing.assert_array_equal(sess.run([plain, lazy, cls_init]),
                                          [[1, 2], [1, 1], [1, 1]])


def test_scope_defaults_are_inherited():
    def reg(v):
        return tf.reduce_sum(v)

    with tf.Graph().as_default():
        with tf.variable_scope("outer", initializer=tf.constant_initializer(2.0),
                               regularizer=reg, dtype=tf.float64):
            with tf.variable_scope("inner", reuse=tf.AUTO_REUSE):
                z = tf.get_variable("z", [2])
                tf.get_variable("z", [2])
                assert tf.get_variable_scope().name == "outer/inner"
            quiet = tf.get_variable("quiet", [1], regularizer=tf.no_regularizer)
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        assert [t.name for t in losses] == ["outer/inner/z/Regularizer/Sum:0"]
        assert z.dtype == float64_ref and quiet.dtype == float64_ref
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(z), [2.0, 2.0])
            assert sess.run(losses[0]) == 4.0


def test_custom_getters_nest():
    calls = []

    def outer_getter(getter, name, *args, **kwargs):
        calls.append("outer")
        kwargs["trainable"] = False
        return getter(name + "_o", *args, **kwargs)

    def inner_getter(getter, name, *args, **kwargs):
        calls.append("inner")
        return getter(name + "_i", *args, **kwargs)

    with tf.Graph().as_default():
        with tf.variable_scope("cg", custom_getter=outer_getter):
            with tf.variable_scope("sub", custom_getter=inner_getter):
                v = tf.get_variable("v", [1])
        assert v.name == "cg/sub/v_i_o:0" and calls == ["inner", "outer"]
        assert v not in tf.trainable_variables()
        with pytest.raises(ValueError, match="custom_getter which is not callable"):
            tf.get_variable("bad", [1], custom_getter=3)


def test_local_variables_and_caching_device():
    with tf.Graph().as_default():
        loc = tf.get_local_variable("loc", [1])
        assert loc in tf.local_variables()
        assert loc not in tf.global_variables() and loc not in tf.trainable_variables()
        with tf.variable_scope("cached", caching_device="/cpu:0"):
            c = tf.get_variable("c", [1])
        assert c.value().device.endswith("CPU:0") and c.op.device == ""
        with tf.variable_op_scope([], "old", "default"):
            assert tf.get_variable("o", [1]).name == "old/o:0"


def _fixture_partitions():
    with open(os.path.join(FIXTURES, "checkpoints", "c_partitioned", "model.ckpt.json")) as f:
        return json.load(f)


def test_partitioned_variables_match_tensorflow():
    expected = _fixture_partitions()
    with tf.Graph().as_default() as g:
        part = tf.get_variable("part", [10, 3], partitioner=tf.fixed_size_partitioner(3),
                               initializer=tf.zeros_initializer())
        part_col = tf.get_variable("part_col", [2, 7], initializer=tf.zeros_initializer(),
                                   partitioner=tf.fixed_size_partitioner(3, axis=1))
        plain = tf.get_variable("plain", initializer=[1.0, 2.0])
        defs = [v.to_proto() for v in tf.global_variables()]
        for name, pvar in (("part", part), ("part_col", part_col)):
            assert pvar.name == name and len(pvar) == 3
            for var, want in zip(pvar, expected["partitions"][name]):
                info = var._get_save_slice_info()
                assert var.op.name == want["variable"]
                assert (info.full_name, info.full_shape, info.var_offset, info.var_shape) == \
                    (want["full_name"], want["full_shape"], want["var_offset"], want["var_shape"])
                assert info.spec == want["spec"]
        for d, want in zip(defs, expected["meta_graph_variables_collection"]):
            assert d.variable_name == want["variable_name"]
            assert d.initial_value_name == want["initial_value_name"]
            assert d.snapshot_name == want["snapshot_name"]
            if "save_slice_info_def" in want:
                s = want["save_slice_info_def"]
                assert (d.save_slice_info_def.full_name, list(d.save_slice_info_def.var_offset),
                        list(d.save_slice_info_def.var_shape)) == \
                    (s["full_name"], s["var_offset"], s["var_shape"])
        assert plain.name == "plain:0"
        assert "part/part_0/Initializer/zeros" in [op.name for op in g.get_operations()]
        full = tf.convert_to_tensor(part_col)
        assert full.name == "part_col:0" and full.shape.as_list() == [2, 7]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([v.assign(np.reshape(want["value"]["value"], want["var_shape"]))
                      for v, want in zip(part_col, expected["partitions"]["part_col"])])
            np.testing.assert_array_equal(sess.run(full),
                                          expected["full_values"]["part_col"]["value"])


def test_partitioned_reuse_and_errors():
    with tf.Graph().as_default():
        p = tf.get_variable("p", [6, 2], partitioner=tf.fixed_size_partitioner(2))
        assert p._get_partitions() == [2, 1] and p.get_shape().as_list() == [6, 2]
        with tf.variable_scope("", reuse=True):
            assert tf.get_variable("p", [6, 2]) is p
            with pytest.raises(ValueError, match="Trying to reuse partitioned variable p, but "
                                                 "specified partitions"):
                tf.get_variable("p", [6, 2], partitioner=tf.fixed_size_partitioner(3))
        with pytest.raises(ValueError, match="Partitioned variable with name p already exists"):
            tf.get_variable("p", [6, 2], partitioner=tf.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="No partitioner was provided, but a partitioned "
                                             "version of the variable was found: p/part_0"):
            tf.get_variable("p", [6, 2])
        tf.get_variable("q", [3])
        with pytest.raises(ValueError, match="A partitioner was provided, but an unpartitioned "
                                             "version of the variable was found: q"):
            tf.get_variable("q", [3], partitioner=tf.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="Shape of a new partitioned variable must be fully "
                                             "defined"):
            tf.get_variable("r", [None, 2], partitioner=tf.fixed_size_partitioner(2),
                            initializer=tf.zeros_initializer())
        scalar = tf.get_variable("s", [], partitioner=tf.fixed_size_partitioner(2))
        assert isinstance(scalar, tf.Variable)


def test_partitioned_initializer_from_value_and_assign():
    with tf.Graph().as_default():
        value = np.arange(10, dtype=np.float32).reshape(5, 2)
        p = tf.get_variable("p", initializer=tf.constant(value),
                            partitioner=tf.fixed_size_partitioner(2))
        assert [v.shape.as_list() for v in p] == [[3, 2], [2, 2]]
        assign = p.assign(value * 2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(p.as_tensor()), value)
            sess.run(assign)
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(p)), value * 2)
        with pytest.raises(TypeError, match="doesn't support being used as a reference"):
            tf.convert_to_tensor(p, as_ref=True)


def test_partitioners():
    shape, f32 = tf.TensorShape([1000, 10]), tf.float32
    assert tf.fixed_size_partitioner(4)(shape=shape, dtype=f32) == [4, 1]
    assert tf.fixed_size_partitioner(50, axis=1)(shape=shape, dtype=f32) == [1, 10]
    # 40 bytes per row, 4000 bytes per shard -> 100 rows per shard -> 10 shards.
    assert tf.variable_axis_size_partitioner(4000)(shape, f32) == [10, 1]
    assert tf.variable_axis_size_partitioner(4000, max_shards=3)(shape, f32) == [3, 1]
    assert tf.variable_axis_size_partitioner(80000, axis=1)(shape, tf.string) == [1, 2]
    # 40000 bytes in slices of at least 8000 bytes -> 5 partitions (capped at 4).
    assert tf.min_max_variable_partitioner(4, min_slice_size=8000)(shape, f32) == [4, 1]
    assert tf.min_max_variable_partitioner(8, min_slice_size=8000)(shape, f32) == [5, 1]
    with pytest.raises(ValueError, match="must be positive"):
        tf.variable_axis_size_partitioner(0)
    with pytest.raises(ValueError, match="Can not partition variable along axis 2"):
        tf.min_max_variable_partitioner(2, axis=2)(shape, f32)


def test_partition_info_reaches_initializer_and_create_partitioned_variables():
    seen = []

    def init(shape, dtype=None, partition_info=None):
        seen.append((shape, partition_info.full_shape, partition_info.var_offset,
                     partition_info.single_offset(shape)))
        return tf.zeros(shape, dtype)

    with tf.Graph().as_default():
        tf.get_variable("v", [5, 3], initializer=init,
                        partitioner=tf.fixed_size_partitioner(2))
        parts = tf.create_partitioned_variables([4, 2], [2, 1], tf.ones_initializer(),
                                                name="made")
        assert [p.name for p in parts] == ["made/part_0:0", "made/part_1:0"]
    assert seen == [([3, 3], [5, 3], [0, 0], 0), ([2, 3], [5, 3], [3, 0], 3)]
