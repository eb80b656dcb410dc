"""What an input_fn returns, parsed (ported from tensorflow_estimator 1.15's util_test.py),
and fn_args."""
import functools

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.estimator import util


def _run(fetches, hooks):
    if hooks:
        with tf.train.MonitoredSession(hooks=hooks) as sess:
            return sess.run(fetches)
    with tf.Session() as sess:
        return sess.run(fetches)


@pytest.mark.parametrize("dataset", [False, True])
def test_parse_input_fn_result_features_and_labels(dataset):
    with tf.Graph().as_default():
        f, l_ = np.arange(100), np.arange(100, 200)
        result = (tf.data.Dataset.from_tensor_slices((f[None], l_[None])) if dataset
                  else (tf.constant(f), tf.constant(l_)))
        features, labels, hooks = util.parse_input_fn_result(result)
        vals = _run([features, labels], hooks)
        assert vals[0].tolist() == f.tolist() and vals[1].tolist() == l_.tolist()
        if dataset:
            assert isinstance(hooks[0], util.DatasetInitializerHook)
        else:
            assert hooks == []


@pytest.mark.parametrize("dataset", [False, True])
def test_parse_input_fn_result_features_only(dataset):
    with tf.Graph().as_default():
        f = np.arange(100)
        result = tf.data.Dataset.from_tensor_slices(f[None]) if dataset else tf.constant(f)
        features, labels, hooks = util.parse_input_fn_result(result)
        assert labels is None
        assert _run([features], hooks)[0].tolist() == f.tolist()


def test_parse_input_fn_result_invalid():
    with tf.Graph().as_default():
        f = np.arange(100)[None]
        with pytest.raises(ValueError, match="input_fn should return"):
            util.parse_input_fn_result(tf.data.Dataset.from_tensor_slices((f, f, f)))


def test_fn_args():
    def fn(a, b, *args, c=1, **kwargs):
        return a

    class Callable:
        def __call__(self, features, labels):
            return features

        def method(self, features, mode):
            return features
    assert util.fn_args(fn) == ("a", "b", "c")
    assert util.fn_args(functools.partial(fn, 1, c=2)) == ("b",)
    assert util.fn_args(Callable()) == ("features", "labels")
    assert util.fn_args(Callable().method) == ("features", "mode")
    assert util.fn_args(lambda features, labels=None: 0) == ("features", "labels")
