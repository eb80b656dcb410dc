"""InMemoryEvaluatorHook and make_stop_at_checkpoint_step_hook (ported from
tensorflow_estimator 1.15's hooks/hooks_test.py)."""
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.estimator import hooks as hooks_lib
from trainflow.estimator import Estimator, EstimatorSpec, RunConfig
from trainflow.estimator.experimental import (InMemoryEvaluatorHook,
                                              make_stop_at_checkpoint_step_hook)

X = np.ones([8, 1], np.float32)


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(features["x"] * w - labels))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return EstimatorSpec(mode, loss=loss, train_op=train_op,
                         eval_metric_ops={"w": tf.metrics.mean(w)})


def input_fn():
    return tf.data.Dataset.from_tensors(({"x": X}, X * 2)).repeat()


def eval_input_fn():
    return tf.data.Dataset.from_tensors(({"x": X}, X * 2))


@pytest.fixture
def est(tmp_path, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    return Estimator(model_fn, model_dir=str(tmp_path),
                     config=RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None))


def _eval_events(est, name=None):
    eval_dir = os.path.join(est.model_dir, "eval" if not name else "eval_" + name)
    out = {}
    for f in os.listdir(eval_dir):
        for e in tf.train.summary_iterator(os.path.join(eval_dir, f)):
            for v in e.summary.value:
                if v.tag == "w":
                    out[e.step] = v.simple_value
    return out


def test_in_memory_evaluator_runs_every_n_iter_and_at_end(est):
    hook = InMemoryEvaluatorHook(est, eval_input_fn, every_n_iter=4)
    est.train(input_fn, steps=10, hooks=[hook])
    events = _eval_events(est)
    # at session creation (step 0), every 4 steps, and at the end; no checkpoint needed.
    assert sorted(events) == [0, 4, 8, 10]
    assert events[0] == 0.0 and events[10] > events[4] > 0.0
    assert est.latest_checkpoint() is None  # evaluated without any checkpoint


def test_in_memory_evaluator_named_dir_and_steps(est):
    hook = InMemoryEvaluatorHook(est, input_fn, steps=2, name="mem", every_n_iter=100)
    est.train(input_fn, steps=3, hooks=[hook])
    assert sorted(_eval_events(est, "mem")) == [0, 3]


def test_in_memory_evaluator_errors(est, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="invalid every_n_iter"):
        InMemoryEvaluatorHook(est, eval_input_fn, every_n_iter=0)

    def saver_fn(features, labels, mode):
        spec = model_fn(features, labels, mode)
        return spec._replace(scaffold=tf.train.Scaffold(saver=tf.train.Saver()))
    e = Estimator(saver_fn, model_dir=str(tmp_path / "s"))
    with pytest.raises(ValueError, match="does not support custom saver"):
        e.train(input_fn, steps=1, hooks=[InMemoryEvaluatorHook(e, eval_input_fn)])
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"chief": ["h:1"], "ps": ["h:2"]}, '
                                    '"task": {"type": "chief", "index": 0}}')
    e2 = Estimator(model_fn, model_dir=str(tmp_path / "d"))
    with pytest.raises(ValueError, match="supports only single machine"):
        InMemoryEvaluatorHook(e2, eval_input_fn)


def test_stop_at_checkpoint_step_hook(tmp_path, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    est = Estimator(model_fn, model_dir=str(tmp_path))
    assert isinstance(make_stop_at_checkpoint_step_hook(est, 5), tf.train.StopAtStepHook)
    est.train(input_fn, steps=3)  # saves model.ckpt-3 at the end
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"chief": ["h:1"], "worker": ["h:2"]}, '
                                    '"task": {"type": "worker", "index": 0}}')
    worker = Estimator(model_fn, model_dir=est.model_dir)
    hook = make_stop_at_checkpoint_step_hook(worker, 3, wait_after_file_check_secs=0)
    assert isinstance(hook, hooks_lib._StopAtCheckpointStepHook)
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        inc = tf.assign_add(step, 1)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(inc)  # step 1: the next is 2 < 3
            assert not sess.should_stop()
            sess.run(inc)  # the next step reaches 3, and model.ckpt-3 exists
            assert sess.should_stop()
    with pytest.raises(ValueError, match="last_step must be specified"):
        hooks_lib._StopAtCheckpointStepHook(est.model_dir, None)
