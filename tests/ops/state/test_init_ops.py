"""Initializers (ops/init_ops.py): values, statistics, TF's graph structure, configs."""
import json
import math
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.state import init_ops
from trainflow._src.ops.state.partitioned_variables import PartitionInfo

from fixture_paths import FIXTURES


def _value(init, shape, dtype=None, partition_info=None):
    with tf.Graph().as_default():
        t = init(shape, dtype=dtype, partition_info=partition_info)
        with tf.Session() as sess:
            return sess.run(t)


def test_constant_kinds():
    np.testing.assert_array_equal(_value(tf.zeros_initializer(), [2, 3]), np.zeros((2, 3)))
    np.testing.assert_array_equal(_value(tf.ones_initializer(), [4], tf.int32), np.ones(4))
    np.testing.assert_array_equal(_value(tf.constant_initializer([1, 2]), [2, 2]),
                                  [[1, 2], [2, 2]])  # padded with the last value (TF1)
    np.testing.assert_array_equal(_value(tf.constant_initializer(3.5), [2]), [3.5, 3.5])
    assert _value(tf.zeros_initializer(dtype=tf.int64), [1]).dtype == np.int64
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        _value(tf.constant_initializer([1.0, 2.0], verify_shape=True), [3])
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        tf.constant_initializer({"a": 1})


def test_random_initializer_statistics():
    n = [200, 100]
    x = _value(tf.random_normal_initializer(1.0, 0.5, seed=1), n)
    assert abs(x.mean() - 1.0) < 0.02 and abs(x.std() - 0.5) < 0.02
    t = _value(tf.truncated_normal_initializer(0.0, 2.0, seed=1), n)
    assert np.abs(t).max() <= 4.0
    u = _value(tf.random_uniform_initializer(-2.0, 3.0, seed=1), n)
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.05
    i = _value(tf.random_uniform_initializer(0, 10, seed=1), [1000], tf.int32)
    assert i.dtype == np.int32 and i.min() >= 0 and i.max() <= 9


def test_variance_scaling_modes_and_distributions():
    shape = [3, 3, 20, 40]  # conv kernel: fans include the 3x3 receptive field
    fan_in, fan_out = 9 * 20, 9 * 40
    assert init_ops.compute_fans(shape) == (fan_in, fan_out)
    u = _value(tf.variance_scaling_initializer(2.0, "fan_out", "uniform", seed=2), shape)
    limit = math.sqrt(3.0 * 2.0 / fan_out)
    assert np.abs(u).max() <= limit and np.abs(u).max() > 0.95 * limit
    t = _value(tf.variance_scaling_initializer(1.0, "fan_in", seed=2), shape)
    assert abs(t.std() - math.sqrt(1.0 / fan_in)) < 0.05 * math.sqrt(1.0 / fan_in)
    assert np.abs(t).max() <= 2 * math.sqrt(1.0 / fan_in) / .87962566103423978 * 1.0001
    n = _value(tf.variance_scaling_initializer(1.0, "fan_avg", "untruncated_normal", seed=2),
               shape)
    assert abs(n.std() - math.sqrt(2.0 / (fan_in + fan_out))) < 0.003
    with pytest.raises(ValueError, match="Invalid `mode` argument"):
        tf.variance_scaling_initializer(mode="fan_sideways")
    with pytest.raises(ValueError, match="Invalid `distribution` argument"):
        tf.variance_scaling_initializer(distribution="cauchy")
    with pytest.raises(ValueError, match="`scale` must be positive"):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="Expected floating point type"):
        tf.random_normal_initializer(dtype=tf.int32)


def test_glorot_and_uniform_unit_scaling_limits():
    g = _value(tf.glorot_uniform_initializer(seed=3), [60, 40])
    limit = math.sqrt(6.0 / 100)
    assert np.abs(g).max() <= limit and np.abs(g).max() > 0.97 * limit
    gn = _value(tf.glorot_normal_initializer(seed=3), [60, 40])
    assert abs(gn.std() - math.sqrt(2.0 / 100)) < 0.01
    uus = _value(tf.uniform_unit_scaling_initializer(factor=2.0, seed=3), [30, 10])
    assert np.abs(uus).max() <= 2.0 * math.sqrt(3.0 / 30)


def test_partition_info_scales_by_full_shape():
    info = PartitionInfo(full_shape=[100, 50], var_offset=[40, 0])
    part = _value(tf.glorot_uniform_initializer(seed=4), [20, 50], partition_info=info)
    assert part.shape == (20, 50)
    # Glorot's limit of the full [100, 50] variable, not of a [20, 50] one (0.29).
    assert 0.95 * math.sqrt(6.0 / 150) < np.abs(part).max() <= math.sqrt(6.0 / 150)
    eye = _value(init_ops.Identity(gain=2.0), [2, 4], partition_info=PartitionInfo([4, 4],
                                                                                   [2, 0]))
    np.testing.assert_array_equal(eye, 2.0 * np.eye(4)[2:])


def test_orthogonal_and_identity():
    q = _value(tf.orthogonal_initializer(gain=1.5, seed=5), [6, 4]).astype(np.float64)
    np.testing.assert_allclose(q.T @ q, 2.25 * np.eye(4), atol=1e-5)
    wide = _value(tf.orthogonal_initializer(seed=5), [3, 7]).astype(np.float64)
    np.testing.assert_allclose(wide @ wide.T, np.eye(3), atol=1e-5)
    conv = _value(tf.orthogonal_initializer(seed=5), [2, 2, 3, 5]).reshape(12, 5)
    np.testing.assert_allclose(conv.T @ conv, np.eye(5), atol=1e-5)
    np.testing.assert_array_equal(_value(tf.initializers.identity(), [2, 3]), np.eye(2, 3))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        _value(tf.orthogonal_initializer(), [3])
    with pytest.raises(ValueError, match="only be used for 2D matrices"):
        _value(tf.initializers.identity(), [3])


@pytest.mark.parametrize("init", [
    tf.zeros_initializer(tf.int32), tf.ones_initializer(), tf.constant_initializer(2.0),
    tf.random_uniform_initializer(-1.0, 1.0, seed=3), tf.random_normal_initializer(seed=1),
    tf.truncated_normal_initializer(0.5, 2.0), tf.uniform_unit_scaling_initializer(1.5),
    tf.variance_scaling_initializer(2.0, "fan_avg", "uniform", seed=7),
    tf.glorot_uniform_initializer(seed=1), tf.glorot_normal_initializer(),
    tf.orthogonal_initializer(gain=0.5), tf.initializers.identity(gain=3.0),
])
def test_config_round_trip(init):
    config = init.get_config()
    json.dumps(config)
    again = type(init).from_config(config)
    assert again.get_config() == config


def test_initializers_namespace():
    assert tf.initializers.zeros is tf.zeros_initializer
    assert tf.initializers.glorot_uniform is tf.glorot_uniform_initializer
    he = tf.initializers.he_normal(seed=1)
    assert (he.scale, he.mode, he.distribution) == (2.0, "fan_in", "truncated_normal")
    assert tf.initializers.lecun_uniform().distribution == "uniform"
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        assert tf.initializers.global_variables().type == "NoOp"
        assert tf.initializers.variables([v], name="my_init").name == "my_init"


def _fixture_nodes(prefixes):
    with open(os.path.join(FIXTURES, "graphs", "mlp.json")) as f:
        nodes = json.load(f)["nodes"]
    return [n for n in nodes if any(n["name"] == p or n["name"].startswith(p + "/")
                                    for p in prefixes) and "/Adam" not in n["name"]]


def test_get_variable_initializer_graph_matches_tensorflow():
    expected = _fixture_nodes(["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"])
    with tf.Graph().as_default() as g:
        tf.set_random_seed(5)
        for scope, shape, seed in (("dense", [4, 8], 11), ("dense_1", [8, 3], 12)):
            with tf.variable_scope(scope):
                tf.get_variable("kernel", shape,
                                initializer=tf.glorot_uniform_initializer(seed=seed))
                tf.get_variable("bias", shape[1:], initializer=tf.zeros_initializer())
        ops = {op.name: op for op in g.get_operations()}
    assert [n["name"] for n in expected] == list(ops)
    for node in expected:
        op = ops[node["name"]]
        assert op.type == node["op"]
        assert [t._as_node_def_input() for t in op.inputs] == node["input"]
        if op.type != "Assign":  # Assign's colocation comes from the op builder
            assert sorted(op._attrs) == sorted(node["attr_keys"]), op.name
    kernel_init = ops["dense/kernel/Initializer/random_uniform/RandomUniform"]
    assert (kernel_init.get_attr("seed"), kernel_init.get_attr("seed2")) == (5, 11)
    limit = ops["dense/kernel/Initializer/random_uniform/max"]._attrs["value"]
    assert limit == np.float32(0.70710677)
    assert ops["dense/kernel/read"]._attrs["_class"] == [b"loc:@dense/kernel"]
