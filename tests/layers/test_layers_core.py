"""tf.layers.dense / Dense, dropout / Dropout and flatten / Flatten against TensorFlow's
recorded graphs and values."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def _op_names(graph):
    return [[op.name, op.type] for op in graph.get_operations()]


def _collections():
    return {"global": [v.op.name for v in tf.global_variables()],
            "trainable": [v.op.name for v in tf.trainable_variables()],
            "update_ops": [o.name for o in tf.get_collection(tf.GraphKeys.UPDATE_OPS)],
            "reg_losses": [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)]}


def _run(fetches, feed):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_dense_names_reuse_scopes_and_regularizers_match_tf(layers_ref, arr):
    ref = layers_ref["dense_names"]
    ci = tf.constant_initializer
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        h = tf.layers.dense(x, 3, activation=tf.nn.relu, kernel_initializer=ci(arr([4, 3])),
                            kernel_regularizer=lambda w: tf.reduce_sum(tf.square(w)),
                            bias_regularizer=lambda b: tf.reduce_sum(tf.abs(b)),
                            bias_initializer=ci(arr([3], shift=1.0)))
        y = tf.layers.dense(h, 2, kernel_initializer=ci(arr([3, 2], shift=2.0)),
                            activity_regularizer=lambda t: tf.reduce_sum(tf.square(t)))
        tf.layers.dense(h, 2, name="fc", use_bias=False, trainable=False)
        with tf.name_scope("foo"):
            tf.layers.dense(h, 2, name="fc", reuse=True, use_bias=False)
            tf.layers.dense(h, 2)
        with tf.variable_scope("outer"):
            tf.layers.dense(h, 2)
        assert _op_names(g) == ref["nodes"]
        got = _collections()
        for key in ("global", "trainable", "update_ops", "reg_losses"):
            assert got[key] == ref[key], key
        values = _run({"h": h, "y": y,
                       "reg": tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)},
                      {x: ref["x"]})
    for key in ("h", "y", "reg"):
        np.testing.assert_allclose(values[key], ref["values"][key], rtol=1e-5, atol=1e-6)


def test_dense_rank3_uses_tensordot_like_tf(layers_ref, arr):
    ref = layers_ref["dense_rank3"]
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
        y = tf.layers.dense(x, 2, kernel_initializer=tf.constant_initializer(arr([4, 2])),
                            activation=tf.nn.tanh)
        assert _op_names(g) == ref["nodes"]
        assert y.shape.as_list() == ref["shape"]
        np.testing.assert_allclose(_run(y, {x: ref["x"]}), ref["y"], rtol=1e-5, atol=1e-6)


def test_dense_class_attributes_and_second_call(layers_ref):
    ref = layers_ref["dense_class"]
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        layer = tf.layers.Dense(3, name="my_dense")
        a = layer(x)
        b = layer.apply(x)
        c = tf.layers.Dense(3)(x)
        assert _op_names(g) == ref["nodes"]
        attrs = ref["attrs"]
        assert layer.name == attrs["name"] and layer.scope_name == attrs["scope_name"]
        assert layer.kernel.name == attrs["kernel"]
        assert [v.name for v in layer.variables] == attrs["variables"]
        assert [v.name for v in layer.trainable_variables] == attrs["trainable_variables"]
        assert [a.name, b.name, c.name] == [attrs["a"], attrs["b"], attrs["c"]]
        assert layer.bias is layer.variables[1]
        assert layer.losses == [] and layer.updates == [] and layer.count_params() == 15


def test_dense_non_trainable_and_constraint():
    g = tf.Graph()
    with g.as_default():
        layer = tf.layers.Dense(2, trainable=False, kernel_constraint=lambda w: w)
        layer(tf.zeros([1, 3]))
        assert layer.trainable_variables == []
        names = [v.op.name for v in layer.non_trainable_variables]
        assert names == ["dense/kernel", "dense/bias"]
        assert tf.trainable_variables() == []
        assert layer.kernel.constraint is not None


def test_dense_keras_names_for_activation_and_initializer():
    g = tf.Graph()
    with g.as_default():
        y = tf.layers.dense(tf.ones([2, 3]), 4, activation="relu", kernel_initializer="ones",
                            bias_initializer="zeros")
        assert y.op.name == "dense/Relu"
        np.testing.assert_allclose(_run(y, {}), np.full([2, 4], 3.0))


@pytest.mark.parametrize("label, build", [
    ("dense_rank1", lambda: tf.layers.dense(tf.placeholder(tf.float32, [3]), 2)),
    ("dense_none_last", lambda: tf.layers.dense(tf.placeholder(tf.float32, [2, None]), 2)),
    ("dense_twice_same_name", lambda: (
        tf.layers.dense(tf.placeholder(tf.float32, [2, 3]), 2, name="fc"),
        tf.layers.dense(tf.placeholder(tf.float32, [2, 3]), 2, name="fc"))),
    ("dense_reuse_missing",
     lambda: tf.layers.dense(tf.placeholder(tf.float32, [2, 3]), 2, name="nope", reuse=True)),
])
def test_dense_errors_match_tf(layers_ref, label, build):
    ref = layers_ref["errors"][label]
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            build()
    message = str(info.value)
    if label == "dense_rank1":
        # TF 2.21 prints the shape as (Dimension(3),), the layer name without a counter.
        assert message.startswith('Input 0 of layer "dense" is incompatible with the layer: '
                                  "expected min_ndim=2, found ndim=1.")
    else:
        assert message.startswith(ref["message"])


def test_dense_rejects_wrong_input_size_on_second_call():
    with tf.Graph().as_default():
        layer = tf.layers.Dense(2)
        layer(tf.placeholder(tf.float32, [2, 3]))
        with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
            layer(tf.placeholder(tf.float32, [2, 4]))


def test_dense_rejects_integer_inputs():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="non-floating point dtype int32"):
            tf.layers.dense(tf.ones([2, 3], tf.int32), 2)


def test_dropout_names_match_tf(layers_ref):
    ref = layers_ref["dropout"]
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4, 5], name="x")
        a = tf.layers.dropout(x, 0.5)
        b = tf.layers.dropout(x, 0.5, training=True, seed=3)
        t = tf.placeholder(tf.bool, [], name="training")
        c = tf.layers.dropout(x, 0.3, training=t, noise_shape=[4, 1])
        assert _op_names(g) == ref["nodes"]
        assert [a.name, b.name, c.name] == ref["outs"]


def test_dropout_values_for_bool_and_tensor_training():
    g = tf.Graph()
    with g.as_default():
        x = tf.ones([200, 10])
        t = tf.placeholder(tf.bool, [])
        off = tf.layers.dropout(x, 0.4)
        on = tf.layers.dropout(x, 0.4, training=True, seed=1)
        rows = tf.layers.Dropout(0.5, noise_shape=[200, 1], seed=2).apply(x, training=t)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(off), np.ones([200, 10]))
            dropped = sess.run(on)
            assert set(np.unique(dropped)) <= {0.0, np.float32(1 / 0.6)}
            assert 0.3 < np.mean(dropped == 0) < 0.5
            np.testing.assert_array_equal(sess.run(rows, {t: False}), np.ones([200, 10]))
            by_row = sess.run(rows, {t: True})
            assert all(len(set(r)) == 1 for r in by_row)  # whole rows kept or dropped
            assert 0.3 < np.mean(by_row[:, 0] == 0) < 0.7


def test_flatten_both_formats_and_unknown_batch():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2, 3, 4])
        flat = tf.layers.flatten(x)
        flat_cf = tf.layers.Flatten(data_format="channels_first")(x)
        v = tf.placeholder(tf.float32, [None])
        vec = tf.layers.flatten(v)
        assert flat.shape.as_list() == [None, 24] and vec.shape.as_list() == [None, 1]
        data = np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4)
        with tf.Session() as sess:
            a, b = sess.run([flat, flat_cf], {x: data})
    np.testing.assert_array_equal(a, data.reshape(2, 24))
    np.testing.assert_array_equal(b, data.transpose(0, 2, 3, 1).reshape(2, 24))
