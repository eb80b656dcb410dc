"""The early-stopping hooks (ported from tensorflow_estimator 1.15's
early_stopping_test.py)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.estimator import early_stopping
from trainflow.estimator import Estimator, EstimatorSpec, RunConfig
from trainflow.estimator.experimental import (
    make_early_stopping_hook, stop_if_higher_hook, stop_if_lower_hook,
    stop_if_no_decrease_hook, stop_if_no_increase_hook)


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(features["x"] * w - labels))
    return EstimatorSpec(mode, loss=loss, train_op=tf.train.GradientDescentOptimizer(
        0.01).minimize(loss, global_step=tf.train.get_global_step()))


def input_fn():
    x = np.ones([4], np.float32)
    return tf.data.Dataset.from_tensors(({"x": x}, x)).repeat()


def write_eval_metrics(eval_dir, metrics_by_step):
    writer = tf.summary.FileWriter(eval_dir)
    for step, metrics in metrics_by_step.items():
        summary = tf.Summary(value=[tf.Summary.Value(tag=k, simple_value=v)
                                    for k, v in metrics.items()])
        writer.add_summary(summary, step)
    writer.close()


@pytest.fixture
def est(tmp_path, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    return Estimator(model_fn, model_dir=str(tmp_path))


def test_read_eval_metrics(est):
    write_eval_metrics(est.eval_dir(), {20: {"loss": 2.0, "acc": 0.5}, 10: {"loss": 3.0},
                                        30: {"loss": 1.0}})
    assert early_stopping.read_eval_metrics(est.eval_dir()) == {
        10: {"loss": 3.0}, 20: {"loss": 2.0, "acc": 0.5}, 30: {"loss": 1.0}}
    assert early_stopping.read_eval_metrics(est.eval_dir() + "_none") == {}


@pytest.mark.parametrize("make, metrics, stops", [
    (lambda e: stop_if_higher_hook(e, "acc", 0.9, run_every_secs=None, run_every_steps=1),
     {10: {"acc": 0.5}, 20: {"acc": 0.95}}, True),
    (lambda e: stop_if_higher_hook(e, "acc", 0.9, run_every_secs=None, run_every_steps=1),
     {10: {"acc": 0.5}, 20: {"acc": 0.85}}, False),
    (lambda e: stop_if_higher_hook(e, "acc", 0.9, min_steps=30, run_every_secs=None,
                                   run_every_steps=1),
     {10: {"acc": 0.5}, 20: {"acc": 0.95}}, False),
    (lambda e: stop_if_lower_hook(e, "loss", 0.1, run_every_secs=None, run_every_steps=1),
     {10: {"loss": 0.5}, 20: {"loss": 0.05}}, True),
    (lambda e: stop_if_no_decrease_hook(e, "loss", 10, run_every_secs=None,
                                        run_every_steps=1),
     {10: {"loss": 0.5}, 20: {"loss": 0.6}}, True),
    (lambda e: stop_if_no_decrease_hook(e, "loss", 20, run_every_secs=None,
                                        run_every_steps=1),
     {10: {"loss": 0.5}, 20: {"loss": 0.6}}, False),
    (lambda e: stop_if_no_increase_hook(e, "acc", 10, run_every_secs=None,
                                        run_every_steps=1),
     {10: {"acc": 0.5}, 20: {"acc": 0.4}}, True),
    (lambda e: stop_if_no_increase_hook(e, "acc", 10, run_every_secs=None,
                                        run_every_steps=1),
     {10: {"acc": 0.5}, 20: {"acc": 0.6}}, False),
])
def test_hooks_stop_training(est, make, metrics, stops):
    write_eval_metrics(est.eval_dir(), metrics)
    est.train(input_fn, hooks=[make(est)], max_steps=5)
    assert est.get_variable_value("global_step") == (1 if stops else 5)
    assert bool(est.get_variable_value("signal_early_stopping/STOP")) == stops


def test_make_early_stopping_hook_checks(est):
    with pytest.raises(TypeError, match="`estimator` must have type"):
        make_early_stopping_hook(object(), lambda: False)
    with pytest.raises(ValueError, match="Only one of `run_every_secs` and `run_every_steps`"):
        make_early_stopping_hook(est, lambda: False, run_every_secs=1, run_every_steps=1)
    with pytest.raises(TypeError, match="`should_stop_fn` must be callable"):
        make_early_stopping_hook(est, "x")


def test_non_chief_gets_the_checking_hook(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"chief": ["h:1"], "worker": ["h:2"]}, '
                                    '"task": {"type": "worker", "index": 0}}')
    est = Estimator(model_fn, model_dir=str(tmp_path), config=RunConfig())
    hook = make_early_stopping_hook(est, lambda: True)
    assert isinstance(hook, early_stopping._CheckForStoppingHook)


def test_checking_hook_stops_when_stop_is_set():
    with tf.Graph().as_default():
        tf.train.create_global_step()
        hook = early_stopping._CheckForStoppingHook()
        counter = tf.train.get_global_step().assign_add(1)
        set_stop = early_stopping._get_or_create_stop_var().assign(True)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(counter)
            assert not sess.should_stop()
            sess.run_step_fn(lambda step_context: step_context.session.run(set_stop))
            sess.run(counter)
            assert sess.should_stop()
