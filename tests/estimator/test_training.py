"""train_and_evaluate, TrainSpec, EvalSpec, the exporters and export gc (ported from
tensorflow_estimator 1.15's training_test.py, exporter_test.py and gc_test.py)."""
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.estimator import gc
from trainflow.estimator import (BestExporter, Estimator, EstimatorSpec, EvalSpec,
                                 FinalExporter, LatestExporter, ModeKeys, RunConfig, TrainSpec,
                                 train_and_evaluate)
from trainflow.estimator.export import build_raw_serving_input_receiver_fn

X = np.random.RandomState(1).randn(32, 2).astype(np.float32)
Y = (X @ np.array([[2.0], [-3.0]], np.float32)).astype(np.float32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)


def model_fn(features, labels, mode):
    pred = tf.layers.dense(features["x"], 1)
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions={"y": pred})
    loss = tf.losses.mean_squared_error(labels, pred)
    return EstimatorSpec(mode, loss=loss, train_op=tf.train.GradientDescentOptimizer(
        0.05).minimize(loss, global_step=tf.train.get_global_step()))


def serving_fn():
    return build_raw_serving_input_receiver_fn({"x": tf.placeholder(tf.float32, [None, 2])})


@pytest.fixture(autouse=True)
def no_tf_config(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)


# -- specs -------------------------------------------------------------------------------
@pytest.mark.parametrize("build, error, message", [
    (lambda: TrainSpec(input_fn=1), TypeError, "`input_fn` must be callable"),
    (lambda: TrainSpec(input_fn, max_steps=0), ValueError, "Must specify max_steps > 0"),
    (lambda: TrainSpec(input_fn, hooks=["h"]), TypeError, "All hooks must be SessionRunHook"),
    (lambda: EvalSpec(input_fn=1), TypeError, "`input_fn` must be callable"),
    (lambda: EvalSpec(input_fn, steps=0), ValueError, "Must specify steps > 0"),
    (lambda: EvalSpec(input_fn, name=1), TypeError, "`name` must be string"),
    (lambda: EvalSpec(input_fn, start_delay_secs=-1), ValueError,
     "Must specify start_delay_secs >= 0"),
    (lambda: EvalSpec(input_fn, throttle_secs=-1), ValueError,
     "Must specify throttle_secs >= 0"),
    (lambda: EvalSpec(input_fn, exporters=["e"]), TypeError, "`exporters` must be an Exporter"),
    (lambda: EvalSpec(input_fn, exporters=[LatestExporter("a", serving_fn()),
                                           LatestExporter("a", serving_fn())]),
     ValueError, "`exporters` must have unique names"),
    (lambda: EvalSpec(input_fn, exporters=LatestExporter("", serving_fn())), ValueError,
     "cannot have a name that is `None` or empty"),
])
def test_invalid_specs(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_spec_defaults():
    spec = EvalSpec(input_fn, exporters=LatestExporter("a", serving_fn()))
    assert (spec.steps, spec.start_delay_secs, spec.throttle_secs) == (100, 120, 600)
    assert len(spec.exporters) == 1
    assert TrainSpec(input_fn).max_steps is None


@pytest.mark.parametrize("args, message", [
    (("est", "train", None), "`eval_spec` must have type `tf.estimator.EvalSpec`"),
    ((None, "train", "eval"), "`estimator` must have type `tf.estimator.Estimator`"),
    (("est", None, "eval"), "`train_spec` must have type `tf.estimator.TrainSpec`"),
])
def test_train_and_evaluate_type_errors(tmp_path, args, message):
    values = {"est": Estimator(model_fn, model_dir=str(tmp_path)),
              "train": TrainSpec(input_fn), "eval": EvalSpec(input_fn)}
    with pytest.raises(TypeError, match=message):
        train_and_evaluate(*[values.get(a) for a in args])


# -- local train_and_evaluate ------------------------------------------------------------
def test_local_train_and_evaluate_with_exporters(tmp_path):
    est = Estimator(model_fn, model_dir=str(tmp_path / "m"),
                    config=RunConfig(save_checkpoints_steps=10))
    eval_spec = EvalSpec(input_fn, steps=2, throttle_secs=0, exporters=[
        LatestExporter("latest", serving_fn(), exports_to_keep=2),
        FinalExporter("final", serving_fn()),
        BestExporter("best", serving_fn())])
    metrics, exports = train_and_evaluate(est, TrainSpec(input_fn, max_steps=30), eval_spec)
    assert metrics["global_step"] == 30 and "loss" in metrics
    assert len(exports) == 3 and all(exports)
    export_root = os.path.join(est.model_dir, "export")
    assert len(os.listdir(os.path.join(export_root, "latest"))) <= 2
    assert len(os.listdir(os.path.join(export_root, "final"))) == 1
    assert os.listdir(os.path.join(export_root, "best"))
    assert os.path.isdir(os.path.join(est.model_dir, "eval"))


def test_local_train_and_evaluate_evaluates_at_the_end(tmp_path):
    est = Estimator(model_fn, model_dir=str(tmp_path / "m"))  # saves every 600 s
    metrics, exports = train_and_evaluate(est, TrainSpec(input_fn, max_steps=5),
                                          EvalSpec(input_fn, steps=1))
    assert metrics["global_step"] == 5 and exports == []


def test_evaluator_task_id_must_be_zero(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"chief": ["h:1"]}, '
                                    '"task": {"type": "evaluator", "index": 1}}')
    est = Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="there can only be one `evaluator` task"):
        train_and_evaluate(est, TrainSpec(input_fn), EvalSpec(input_fn))


def test_evaluator_task_evaluates_until_max_steps(tmp_path, monkeypatch):
    est = Estimator(model_fn, model_dir=str(tmp_path / "m"))
    est.train(input_fn, max_steps=4)
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"chief": ["h:1"]}, '
                                    '"task": {"type": "evaluator", "index": 0}}')
    est2 = Estimator(model_fn, model_dir=str(tmp_path / "m"))
    metrics = train_and_evaluate(est2, TrainSpec(input_fn, max_steps=4),
                                 EvalSpec(input_fn, steps=1, start_delay_secs=0,
                                          throttle_secs=0))
    assert metrics is None  # TF's evaluator returns nothing
    assert os.path.isdir(os.path.join(est.model_dir, "eval"))


def test_train_refuses_evaluator_and_ps(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"chief": ["h:1"]}, '
                                    '"task": {"type": "evaluator", "index": 0}}')
    est = Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Train has been called wrong configuration"):
        est.train(input_fn, steps=1)


# -- exporters ---------------------------------------------------------------------------
def test_exporters_to_keep_must_be_positive():
    for cls in (LatestExporter, BestExporter):
        with pytest.raises(ValueError, match="`exports_to_keep`, if provided, must be"):
            cls(name="a", serving_input_receiver_fn=serving_fn(), exports_to_keep=0)
    with pytest.raises(ValueError, match="`compare_fn` must not be None"):
        BestExporter(serving_input_receiver_fn=serving_fn(), compare_fn=None)


def test_final_exporter_only_exports_the_final_model(tmp_path):
    est = Estimator(model_fn, model_dir=str(tmp_path / "m"))
    est.train(input_fn, steps=2)
    exporter = FinalExporter("final", serving_fn())
    assert exporter.name == "final"
    path = str(tmp_path / "e")
    assert exporter.export(est, path, None, {}, is_the_final_export=False) is None
    assert exporter.export(est, path, None, {}, is_the_final_export=True)


def test_best_exporter_compares_losses(tmp_path):
    est = Estimator(model_fn, model_dir=str(tmp_path / "m"))
    est.train(input_fn, steps=2)
    exporter = BestExporter("best", serving_fn(), event_file_pattern=None)
    path = str(tmp_path / "e")
    assert exporter.export(est, path, None, {"loss": 5.0}, False)
    assert exporter.export(est, path, None, {"loss": 6.0}, False) is None
    with pytest.raises(ValueError, match="current_eval_result cannot be empty"):
        exporter.export(est, path, None, {}, False)


def test_best_exporter_reads_eval_event_files(tmp_path):
    est = Estimator(model_fn, model_dir=str(tmp_path / "m"))
    est.train(input_fn, steps=2)
    loss = est.evaluate(input_fn, steps=1)["loss"]
    exporter = BestExporter("best", serving_fn())
    path = str(tmp_path / "e")
    assert exporter.export(est, path, None, {"loss": loss + 1.0}, False) is None
    assert exporter.export(est, path, None, {"loss": loss / 2}, False)


# -- gc ----------------------------------------------------------------------------------
def _paths(*versions):
    return [gc.Path("/foo", v) for v in versions]


def test_largest_export_versions():
    assert gc._largest_export_versions(2)(_paths(8, 9, 10)) == _paths(9, 10)
    assert gc._largest_export_versions(3)(_paths(1, 2)) == _paths(1, 2)


def test_mod_and_one_of_every_n():
    assert gc._mod_export_version(2)(_paths(1, 2, 3, 4)) == _paths(2, 4)
    paths = _paths(0, 1, 3, 5, 6, 7, 8, 33)
    assert gc._one_of_every_n_export_versions(3)(paths) == _paths(3, 6, 8, 33)


def test_union_and_negation():
    paths = _paths(1, 2, 3, 9)
    both = gc._union(gc._largest_export_versions(1), gc._mod_export_version(2))
    assert both(paths) == _paths(2, 9)
    assert gc._negation(gc._mod_export_version(2))(paths) == _paths(1, 3, 9)


def test_get_paths(tmp_path):
    for name in ("1", "2", "x"):
        (tmp_path / name).mkdir()

    def parser(path):
        name = os.path.basename(path.path)
        return path._replace(export_version=int(name)) if name.isdigit() else None
    got = gc._get_paths(str(tmp_path), parser)
    assert [p.export_version for p in got] == [1, 2]
