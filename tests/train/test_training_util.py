"""Global-step helpers as TF's: creation, lookup by collection or name, type checks."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.train import training_util


def test_create_get_and_global_step():
    with tf.Graph().as_default() as g:
        assert tf.train.get_global_step() is None
        with tf.name_scope("outer"):
            step = tf.train.create_global_step()
        assert step.op.name == "global_step" and step.dtype.base_dtype == tf.int64
        assert not step.trainable and step in tf.global_variables()
        assert g.get_collection(tf.GraphKeys.GLOBAL_STEP) == [step]
        assert tf.train.get_global_step() is step
        assert tf.train.get_or_create_global_step() is step
        with pytest.raises(ValueError, match='"global_step" already exists.'):
            tf.train.create_global_step()
        inc = training_util._increment_global_step(3)
        assert inc.op.type == "AssignAdd" and inc.op.name.startswith("global_step/")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(inc)
            assert tf.train.global_step(sess, step) == 3
            assert isinstance(tf.train.global_step(sess, step), int)


def test_lookup_by_name_and_errors():
    with tf.Graph().as_default() as g:
        tf.Variable(np.int64(0), name="global_step", trainable=False)
        assert tf.train.get_global_step().op.name == "global_step"
    with tf.Graph().as_default() as g:
        tf.Variable(0.0, name="global_step")
        with pytest.raises(TypeError, match="does not have integer type"):
            tf.train.get_global_step()
    with tf.Graph().as_default() as g:
        g.add_to_collection(tf.GraphKeys.GLOBAL_STEP, tf.Variable([1, 2]))
        with pytest.raises(TypeError, match="is not scalar"):
            tf.train.get_global_step()
        g.add_to_collection(tf.GraphKeys.GLOBAL_STEP, tf.Variable(3))
        assert tf.train.get_global_step() is None  # several: logged, None
    with pytest.raises(TypeError, match="must be a Variable or Tensor"):
        tf.train.assert_global_step(3)
    with tf.Graph().as_default():
        tf.train.assert_global_step(tf.placeholder(tf.int32, [None]))  # unknown size ok
        with pytest.raises(ValueError, match="Global step tensor should be created"):
            training_util._increment_global_step(1)
