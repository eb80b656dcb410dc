"""tf.estimator.add_metrics (TF's extenders_test)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

_X = np.random.RandomState(2).rand(16, 1).astype(np.float32)


def _input_fn():
    return tf.estimator.inputs.numpy_input_fn({"x": _X}, 2 * _X, batch_size=8, num_epochs=1,
                                              shuffle=False)


def test_add_metrics_adds_to_the_canned_metrics(tmp_path):
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x")],
                                       model_dir=str(tmp_path))
    est.train(_input_fn(), steps=2)

    def metric_fn(labels, predictions, features, config):
        assert config is not None and "x" in features
        return {"mae": tf.metrics.mean_absolute_error(labels, predictions["predictions"])}

    extended = tf.estimator.add_metrics(est, metric_fn)
    assert extended.model_dir == est.model_dir
    result = extended.evaluate(_input_fn())
    base = est.evaluate(_input_fn())
    assert {"mae", "average_loss", "loss", "global_step"} <= set(result)
    assert result["average_loss"] == pytest.approx(base["average_loss"])
    first = next(extended.predict(_input_fn()))
    assert set(first) == {"predictions"}


def test_add_metrics_rejects_unknown_args():
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x")])
    with pytest.raises(ValueError, match="not expected args"):
        tf.estimator.add_metrics(est, lambda labels, what: {})
