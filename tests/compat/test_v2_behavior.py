"""The TF2-behavior switches of tf.compat.v1 and TF's case-insensitive op names."""
import pytest

import trainflow
import trainflow.compat.v1 as tf
from tf_interop import needs_tf, run_json


def test_migrated_program_runs_after_disable_v2_behavior():
    tf.disable_v2_behavior()
    assert not tf.executing_eagerly()
    assert not tf.executing_eagerly_outside_functions()
    assert not tf.control_flow_v2_enabled()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        w = tf.get_variable("w", [2, 1], initializer=tf.ones_initializer())
        y = tf.reduce_sum(tf.matmul(x, w))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y, {x: [[1.0, 2.0], [3.0, 4.0]]}) == 10.0


@pytest.mark.parametrize("switch", ["enable_v2_behavior", "enable_eager_execution"])
def test_eager_switches_say_trainflow_is_graph_mode(switch):
    with pytest.raises(ValueError, match=r"graph mode only .* no eager execution"):
        getattr(tf, switch)()


def test_enable_v2_tensorshape_points_to_dimension_value():
    tf.disable_v2_tensorshape()
    with pytest.raises(ValueError, match="dimension_value"):
        tf.enable_v2_tensorshape()


def test_tensor_equality_flag_keeps_graph_mode_identity():
    with tf.Graph().as_default():
        a, b = tf.constant(1.0), tf.constant(1.0)
        try:
            tf.enable_tensor_equality()
            assert a == a and a != b  # graph mode compares identity, as TF does
            assert len({a, b}) == 2
        finally:
            tf.disable_tensor_equality()
        assert trainflow.Tensor._USE_EQUALITY is False


def test_control_flow_v2_flag():
    try:
        tf.enable_control_flow_v2()
        assert tf.control_flow_v2_enabled()
    finally:
        tf.disable_control_flow_v2()
    assert not tf.control_flow_v2_enabled()


def test_compat_namespaces():
    assert trainflow.compat.v1.Session is tf.Session
    assert tf.compat.v1.disable_v2_behavior is tf.disable_v2_behavior
    assert not hasattr(trainflow.compat, "v2")
    with pytest.raises(AttributeError, match="TensorFlow 1.x's graph-mode API"):
        trainflow.compat.v2  # noqa: B018


NAMES = [("Mean", None), ("mean", None), ("MEAN", None), ("mean_1", None), ("x", None),
         ("X", None), ("a", "Mean"), ("A", "mean")]


def _names(tf_module):
    out = []
    with tf_module.Graph().as_default():
        for name, scope in NAMES:
            if scope:
                with tf_module.name_scope(scope + "/"):
                    out.append(tf_module.constant(1.0, name=name).op.name)
            else:
                out.append(tf_module.constant(1.0, name=name).op.name)
        out.append(tf_module.reduce_mean([1.0, 2.0]).op.name)
    return out


def test_op_names_are_unique_case_insensitively():
    assert _names(tf) == ["Mean", "mean_1", "MEAN_2", "mean_1_1", "x", "X_1", "Mean/a",
                          "mean/A_1", "Mean_3"]


_TF_NAMES = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
NAMES = json.loads(sys.stdin.read())
out = []
with tf.Graph().as_default():
    for name, scope in NAMES:
        if scope:
            with tf.name_scope(scope + "/"):
                out.append(tf.constant(1.0, name=name).op.name)
        else:
            out.append(tf.constant(1.0, name=name).op.name)
    out.append(tf.reduce_mean([1.0, 2.0]).op.name)
print(json.dumps(out))
"""


@needs_tf
def test_op_names_match_tensorflow():
    assert _names(tf) == run_json(_TF_NAMES, spec=NAMES)
