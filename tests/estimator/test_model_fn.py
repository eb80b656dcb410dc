"""EstimatorSpec's checks (ported from tensorflow_estimator 1.15's model_fn_test.py)."""
import pytest

import trainflow.compat.v1 as tf
from trainflow.estimator import EstimatorSpec, ModeKeys
from trainflow.estimator.export import ClassificationOutput, PredictOutput


def test_mode_keys():
    assert (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT) == ("train", "eval", "infer")


def test_all_fields_train():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        predictions = {"p": tf.constant([1.0])}
        spec = EstimatorSpec(ModeKeys.TRAIN, predictions=predictions, loss=loss,
                             train_op=tf.no_op(),
                             eval_metric_ops={"m": tf.metrics.mean(loss)},
                             training_hooks=[tf.train.StopAtStepHook(num_steps=1)])
        assert spec.loss is loss and spec.predictions == predictions
        assert spec.export_outputs is None
        assert isinstance(spec.scaffold, tf.train.Scaffold)
        assert len(spec.training_hooks) == 1 and spec.evaluation_hooks == ()


def test_minimal_specs():
    with tf.Graph().as_default():
        assert EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0)).predictions == {}
        spec = EstimatorSpec(ModeKeys.PREDICT, predictions={"p": tf.constant([1.0])})
        assert set(spec.export_outputs) == {"serving_default"}
        assert isinstance(spec.export_outputs["serving_default"], PredictOutput)


def test_loss_reshaped_to_scalar():
    with tf.Graph().as_default():
        spec = EstimatorSpec(ModeKeys.EVAL, loss=tf.constant([1.0]))
        assert spec.loss.shape.as_list() == []


@pytest.mark.parametrize("build, error, message", [
    (lambda: EstimatorSpec(ModeKeys.TRAIN, loss=tf.constant(1.0)), ValueError,
     "Missing train_op"),
    (lambda: EstimatorSpec(ModeKeys.TRAIN, train_op=tf.no_op()), ValueError, "Missing loss"),
    (lambda: EstimatorSpec(ModeKeys.EVAL), ValueError, "Missing loss"),
    (lambda: EstimatorSpec(ModeKeys.PREDICT), ValueError, "Missing predictions"),
    (lambda: EstimatorSpec(ModeKeys.EVAL, loss=tf.constant([1.0, 2.0])), ValueError,
     "Loss must be scalar"),
    (lambda: EstimatorSpec(ModeKeys.EVAL, loss=1.0), TypeError, "loss must be Tensor"),
    (lambda: EstimatorSpec(ModeKeys.TRAIN, loss=tf.constant(1.0), train_op="x"), TypeError,
     "train_op must be Operation or Tensor"),
    (lambda: EstimatorSpec(ModeKeys.PREDICT, predictions={"p": 1.0}), TypeError,
     r"predictions\[p\] must be Tensor"),
    (lambda: EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0), eval_metric_ops=[]),
     TypeError, "eval_metric_ops must be a dict"),
    (lambda: EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0),
                           eval_metric_ops={"m": tf.constant(1.0)}), TypeError,
     r"must be \(metric_value, update_op\) tuples"),
    (lambda: EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0), training_hooks=["h"]),
     TypeError, "All hooks must be SessionRunHook instances"),
    (lambda: EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0), scaffold="s"), TypeError,
     "scaffold must be tf.train.Scaffold"),
    (lambda: EstimatorSpec(ModeKeys.PREDICT, predictions={"p": tf.constant([1.0])},
                           export_outputs=[]), TypeError, "export_outputs must be dict"),
    (lambda: EstimatorSpec(ModeKeys.PREDICT, predictions={"p": tf.constant([1.0])},
                           export_outputs={"a": 1}), TypeError,
     "Values in export_outputs must be ExportOutput"),
    (lambda: EstimatorSpec(ModeKeys.PREDICT, predictions={"p": tf.constant([1.0])},
                           export_outputs={"a": PredictOutput(tf.constant([1.0])),
                                           "b": PredictOutput(tf.constant([1.0]))}),
     ValueError, "none of them is specified as the default"),
])
def test_invalid_specs(build, error, message):
    with tf.Graph().as_default():
        with pytest.raises(error, match=message):
            build()


def test_tensors_from_another_graph():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be from the default graph"):
            EstimatorSpec(ModeKeys.EVAL, loss=loss)


def test_single_export_output_becomes_default():
    with tf.Graph().as_default():
        out = ClassificationOutput(scores=tf.constant([[0.5]]))
        spec = EstimatorSpec(ModeKeys.PREDICT, predictions={"p": tf.constant([1.0])},
                             export_outputs={"head": out})
        assert spec.export_outputs == {"head": out, "serving_default": out}


def test_replace_keeps_the_mode():
    with tf.Graph().as_default():
        spec = EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0))
        loss2 = tf.constant(2.0)
        assert spec._replace(loss=loss2).loss is loss2
        with pytest.raises(ValueError, match="mode of EstimatorSpec cannot be changed"):
            spec._replace(mode=ModeKeys.TRAIN)
