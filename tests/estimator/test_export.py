"""tf.estimator.export: receivers, receiver builders, export outputs and signature defs
(ported from tensorflow_estimator 1.15's export_test.py and export_output_test.py)."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.estimator import export as export_lib
from trainflow.estimator.export import (
    ClassificationOutput, PredictOutput, RegressionOutput, ServingInputReceiver,
    TensorServingInputReceiver, build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn)


def test_serving_input_receiver_wraps_single_tensors():
    with tf.Graph().as_default():
        f = tf.constant([1.0])
        r = tf.placeholder(tf.string)
        receiver = ServingInputReceiver(f, r)
        assert receiver.features == {"feature": f}
        assert receiver.receiver_tensors == {"input": r}
        assert ServingInputReceiver({1: f}, {"a": r}).features == {1: f}


@pytest.mark.parametrize("features, receivers, alternatives, message", [
    (None, "r", None, "features must be defined"),
    ("f", None, None, "receiver_tensors must be defined"),
    ({"a": 1}, "r", None, "feature a must be a Tensor or SparseTensor"),
    ({1.5: "f"}, "r", None, "feature keys must be strings or ints"),
    ("f", {1: "r"}, None, "receiver_tensor keys must be strings"),
    ("f", "r", [], "receiver_tensors_alternatives must be a dict"),
])
def test_serving_input_receiver_errors(features, receivers, alternatives, message):
    with tf.Graph().as_default():
        tensors = {"f": tf.constant([1.0]), "r": tf.placeholder(tf.string)}

        def sub(x):
            if isinstance(x, str):
                return tensors[x]
            if isinstance(x, dict):
                return {k: tensors.get(v, v) if isinstance(v, str) else v for k, v in x.items()}
            return x
        with pytest.raises(ValueError, match=message):
            ServingInputReceiver(sub(features), sub(receivers), alternatives)


def test_tensor_serving_input_receiver():
    with tf.Graph().as_default():
        f = tf.constant([1.0])
        receiver = TensorServingInputReceiver(f, tf.placeholder(tf.string))
        assert receiver.features is f
        with pytest.raises(ValueError, match="features must be defined"):
            TensorServingInputReceiver(None, tf.placeholder(tf.string))


def test_build_parsing_serving_input_receiver_fn():
    spec = {"a": tf.FixedLenFeature([1], tf.int64), "b": tf.FixedLenFeature([2], tf.float32)}
    with tf.Graph().as_default():
        receiver = build_parsing_serving_input_receiver_fn(spec, default_batch_size=2)()
        examples = receiver.receiver_tensors["examples"]
        assert examples.op.name == "input_example_tensor"
        assert examples.shape.as_list() == [2]
        ex = tf.train.Example(features=tf.train.Features(feature={
            "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[7])),
            "b": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))}))
        with tf.Session() as sess:
            out = sess.run(receiver.features, {examples: [ex.SerializeToString()] * 2})
        assert out["a"].tolist() == [[7], [7]] and out["b"].tolist() == [[1.0, 2.0]] * 2


def test_build_raw_serving_input_receiver_fn():
    with tf.Graph().as_default():
        features = {"x": tf.constant([[1.0, 2.0]], name="feat_x"),
                    "y": tf.constant([[1]], dtype=tf.int64)}
        receiver = build_raw_serving_input_receiver_fn(features, default_batch_size=5)()
        x = receiver.receiver_tensors["x"]
        assert x.op.type == "Placeholder" and x.op.name.startswith("feat_x")
        assert x.shape.as_list() == [5, 2] and x.dtype == tf.float32
        assert receiver.features["y"].dtype == tf.int64


@pytest.mark.parametrize("build, message", [
    (lambda: ClassificationOutput(), "At least one of scores and classes must be set"),
    (lambda: ClassificationOutput(scores=tf.constant([1])), "scores must be a float32 Tensor"),
    (lambda: ClassificationOutput(classes=tf.constant([1.0])),
     "classes must be a string Tensor"),
    (lambda: RegressionOutput(tf.constant([1])), "value must be a float32 Tensor"),
    (lambda: PredictOutput({"a": 1}), "Prediction output value must be a Tensor"),
    (lambda: PredictOutput({1: tf.constant(1)}), "Prediction output key must be a string"),
])
def test_export_output_errors(build, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            build()


def test_predict_output_keys():
    with tf.Graph().as_default():
        t = tf.constant([1.0])
        assert PredictOutput(t).outputs == {"output": t}
        assert PredictOutput({("a", "b"): t}).outputs == {"a/b": t}


def test_build_all_signature_defs():
    with tf.Graph().as_default():
        examples = tf.placeholder(tf.string, [None])
        scores = tf.constant([[0.5, 0.5]])
        classes = tf.constant([["a", "b"]])
        value = tf.constant([1.0])
        outputs = {"serving_default": RegressionOutput(value),
                   "cls": ClassificationOutput(scores, classes),
                   "pred": PredictOutput({"v": value})}
        sigs = export_lib.build_all_signature_defs(
            {"examples": examples}, outputs,
            receiver_tensors_alternatives={"other": {"a": tf.placeholder(tf.float32),
                                                     "b": tf.placeholder(tf.float32)}})
        assert sigs["serving_default"].method_name == "tensorflow/serving/regress"
        assert sigs["cls"].method_name == "tensorflow/serving/classify"
        assert sigs["pred"].method_name == "tensorflow/serving/predict"
        # two float inputs can't feed regress or classify: only the predict one is kept.
        assert {k for k in sigs if k.startswith("other:")} == {"other:pred"}
        with pytest.raises(ValueError, match="export_outputs must be a dict"):
            export_lib.build_all_signature_defs({"e": examples}, None)


def test_timestamped_and_temp_export_dirs(tmp_path):
    d = export_lib.get_timestamped_export_dir(str(tmp_path))
    assert isinstance(d, bytes) and len(d.rsplit(b"/", 1)[1]) == 10
    assert export_lib.get_temp_export_dir(d).rsplit(b"/", 1)[1].startswith(b"temp-")
