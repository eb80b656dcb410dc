"""tf.layers.batch_normalization / BatchNormalization against TensorFlow: variables,
UPDATE_OPS, outputs and moving averages for training False / True / a bool tensor,
fused (4-D) and not, renorm, and the layer class API."""
import re

import numpy as np
import pytest

import trainflow.compat.v1 as tf

# Node-name differences with TF's graphs that come from ops outside tf.layers:
# tf.nn.batch_normalization names its epsilon "batchnorm/Const" (TF: "batchnorm/add/y"),
# and tf.cond passes a ref output (an AssignSub) through an Identity.
_KNOWN_DIFFERENCES = re.compile(r".*/batchnorm/(add/y|Const)$|.*/cond_\d+/Identity$")

_CASES = [("bn2d", [6, 3], -1, None), ("bn4d", [4, 3, 3, 2], -1, None),
          ("bn4d_nonfused", [4, 3, 3, 2], -1, False), ("bn4d_cf", [4, 2, 3, 3], 1, None)]


def _assert_nodes_match(graph, ref_nodes):
    ours = {(op.name, op.type) for op in graph.get_operations()}
    theirs = {tuple(n) for n in ref_nodes}
    unexplained = [n for n in ours ^ theirs if not _KNOWN_DIFFERENCES.match(n[0])]
    assert not unexplained


@pytest.mark.parametrize("label, shape, axis, fused", _CASES)
@pytest.mark.parametrize("training", ["false", "true", "tensor"])
def test_batch_norm_matches_tf(layers_ref, arr, label, shape, axis, fused, training):
    ref = layers_ref[f"{label}_{training}"]
    ci = tf.constant_initializer
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape, name="x")
        tr = {"false": False, "true": True}.get(training)
        if tr is None:
            tr = tf.placeholder(tf.bool, [], name="training")
        c = shape[axis]
        y = tf.layers.batch_normalization(
            x, axis=axis, training=tr, fused=fused, momentum=0.9,
            gamma_initializer=ci(1 + arr([c], 0.05)), beta_initializer=ci(arr([c], 0.05, 1.0)),
            moving_mean_initializer=ci(arr([c], 0.02, 2.)),
            moving_variance_initializer=ci(1 + arr([c], 0.03, 3.)))
        _assert_nodes_match(g, ref["nodes"])
        assert [v.op.name for v in tf.global_variables()] == ref["global"]
        assert [v.op.name for v in tf.trainable_variables()] == ref["trainable"]
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert [o.name for o in updates] == ref["update_ops"]
        feed = {x: ref["x"]}
        if training == "tensor":
            feed[tr] = True
        moving = [v for v in tf.global_variables() if "moving" in v.op.name]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y, feed), ref["y"], rtol=1e-5, atol=1e-5)
            for step in range(2):
                sess.run([y] + updates, feed)
                np.testing.assert_allclose(sess.run(moving), ref["moving_after_steps"][step],
                                           rtol=1e-6, atol=1e-6)
            if training == "tensor":
                feed[tr] = False
                np.testing.assert_allclose(sess.run(y, feed), ref["y_infer_after"],
                                           rtol=1e-5, atol=1e-5)
                before = sess.run(moving)
                sess.run(updates, feed)  # training False: the updates leave the stats alone
                np.testing.assert_array_equal(sess.run(moving), before)


@pytest.mark.parametrize("label, kwargs, shape", [
    ("bn_renorm", dict(renorm=True, renorm_clipping={"rmax": 1.5, "rmin": 0.5, "dmax": 0.3},
                       renorm_momentum=0.8), [6, 3]),
    ("bn_noscale_fused", dict(center=False, scale=False), [4, 2, 2, 3]),
    ("bn_axis_list", dict(axis=[1, 2], fused=False), [4, 2, 3]),
])
def test_batch_norm_variants_match_tf(layers_ref, label, kwargs, shape):
    ref = layers_ref[label]
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape, name="x")
        y = tf.layers.batch_normalization(x, training=True, momentum=0.9, **kwargs)
        assert [v.op.name for v in tf.global_variables()] == ref["global"]
        assert [v.op.name for v in tf.trainable_variables()] == ref["trainable"]
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert [o.name for o in updates] == ref["update_ops"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                np.testing.assert_allclose(sess.run(y, {x: ref["x"]}), ref["ys"][step],
                                           rtol=1e-5, atol=1e-5)
                sess.run(updates, {x: ref["x"]})
            for var in tf.global_variables():
                np.testing.assert_allclose(sess.run(var), ref["vars_after"][var.op.name],
                                           rtol=1e-5, atol=1e-6, err_msg=var.op.name)


def test_batch_norm_class_reuse_and_attributes():
    with tf.Graph().as_default():
        bn = tf.layers.BatchNormalization(name="bn", gamma_regularizer=tf.nn.l2_loss)
        a = bn(tf.ones([2, 3]), training=True)
        b = bn.apply(tf.zeros([2, 3]), training=True)
        assert [v.op.name for v in bn.variables] == ["bn/gamma", "bn/beta", "bn/moving_mean",
                                                     "bn/moving_variance"]
        assert [v.op.name for v in bn.trainable_variables] == ["bn/gamma", "bn/beta"]
        assert [o.name for o in bn.updates] == ["bn/AssignMovingAvg", "bn/AssignMovingAvg_1",
                                                "bn/AssignMovingAvg_2", "bn/AssignMovingAvg_3"]
        assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == bn.updates
        assert [t.name for t in bn.losses] == ["bn/gamma/Regularizer/L2Loss:0"]
        assert a.name == "bn/batchnorm/add_1:0" and b.name == "bn/batchnorm_1/add_1:0"
        assert bn.moving_mean in tf.global_variables()
        assert bn.moving_mean not in tf.trainable_variables()


def test_batch_norm_functional_reuse_shares_variables():
    with tf.Graph().as_default():
        x = tf.ones([4, 2, 2, 3])
        tf.layers.batch_normalization(x, name="bn", training=True)
        tf.layers.batch_normalization(x, name="bn", training=True, reuse=True)
        assert len(tf.global_variables()) == 4
        assert [o.name for o in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == [
            "bn/AssignMovingAvg", "bn/AssignMovingAvg_1", "bn_1/AssignMovingAvg",
            "bn_1/AssignMovingAvg_1"]


def test_batch_norm_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Input has undefined `axis` dimension"):
            tf.layers.batch_normalization(tf.placeholder(tf.float32, [2, None]))
        with pytest.raises(ValueError, match="Invalid axis: 3"):
            tf.layers.batch_normalization(tf.zeros([2, 3]), axis=3)
        with pytest.raises(TypeError, match="Expected an int or a list/tuple of ints"):
            tf.layers.BatchNormalization(axis="x")
        with pytest.raises(ValueError, match="invalid keys for `renorm_clipping`"):
            tf.layers.BatchNormalization(renorm=True, renorm_clipping={"r": 1})
