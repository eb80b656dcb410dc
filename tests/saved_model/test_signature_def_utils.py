"""signature_def_utils: SignatureDefs built generically and for TF Serving's predict,
classify and regress APIs (and Estimator's supervised ones), their validity checks, op
signatures, shapes and types (the behaviour of TF's signature_def_utils_test)."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.protos import meta_graph_pb2, types_pb2
from trainflow._src.saved_model import signature_constants as sc
from trainflow._src.saved_model import signature_def_utils as sdu
from trainflow._src.saved_model.utils import build_tensor_info

_STRING = meta_graph_pb2.TensorInfo(name="foobar", dtype=types_pb2.DT_STRING)
_FLOAT = meta_graph_pb2.TensorInfo(name="foobar", dtype=types_pb2.DT_FLOAT)


def _summary(infos):
    """{key: (name, dtype, rank or None)} of a TensorInfo map."""
    return {k: (i.name, i.dtype, None if i.tensor_shape.unknown_rank
                else len(i.tensor_shape.dim)) for k, i in infos.items()}


def test_build_signature_def():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, 1, name="x")
        y = tf.placeholder(tf.float32, name="y")
        w = tf.constant(1.0, name="w")
        sig = sdu.build_signature_def({"foo-input": build_tensor_info(x)},
                                      {"foo-output": build_tensor_info(y)},
                                      "foo-method-name", {"w": w})
    assert sig.method_name == "foo-method-name"
    assert _summary(sig.inputs) == {"foo-input": ("x:0", types_pb2.DT_FLOAT, 1)}
    assert sig.inputs["foo-input"].tensor_shape.dim[0].size == 1
    assert _summary(sig.outputs) == {"foo-output": ("y:0", types_pb2.DT_FLOAT, None)}
    assert sig.defaults["w"].dtype == types_pb2.DT_FLOAT
    assert list(sig.defaults["w"].float_val) == [1.0]


def test_build_signature_def_rejects_non_constant_defaults():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, name="p")
        with pytest.raises(ValueError, match="Unable to convert"):
            sdu.build_signature_def({}, {}, "m", {"p": p})


def test_regression_signature_def():
    with tf.Graph().as_default():
        sig = sdu.regression_signature_def(tf.constant("a", name="input-1"),
                                           tf.constant(2.2, name="output-1"))
    assert sig.method_name == sc.REGRESS_METHOD_NAME
    assert _summary(sig.inputs) == {"inputs": ("input-1:0", types_pb2.DT_STRING, 0)}
    assert _summary(sig.outputs) == {"outputs": ("output-1:0", types_pb2.DT_FLOAT, 0)}


def test_classification_signature_def():
    with tf.Graph().as_default():
        sig = sdu.classification_signature_def(tf.constant("a", name="input-1"),
                                               tf.constant("b", name="output-1"),
                                               tf.constant(3.3, name="output-2"))
    assert sig.method_name == sc.CLASSIFY_METHOD_NAME
    assert _summary(sig.inputs) == {"inputs": ("input-1:0", types_pb2.DT_STRING, 0)}
    assert _summary(sig.outputs) == {"classes": ("output-1:0", types_pb2.DT_STRING, 0),
                                     "scores": ("output-2:0", types_pb2.DT_FLOAT, 0)}


def test_prediction_signature_def():
    with tf.Graph().as_default():
        sig = sdu.predict_signature_def(
            {"input-1": tf.constant("a", name="input-1"),
             "input-2": tf.constant("b", name="input-2")},
            {"output-1": tf.constant("c", name="output-1"),
             "output-2": tf.constant("d", name="output-2")})
    assert sig.method_name == sc.PREDICT_METHOD_NAME
    assert _summary(sig.inputs) == {"input-1": ("input-1:0", types_pb2.DT_STRING, 0),
                                    "input-2": ("input-2:0", types_pb2.DT_STRING, 0)}
    assert _summary(sig.outputs) == {"output-1": ("output-1:0", types_pb2.DT_STRING, 0),
                                     "output-2": ("output-2:0", types_pb2.DT_STRING, 0)}


# (function, arguments as makers of graph values) -> the ValueError's message
BAD_ARGUMENTS = [
    (sdu.regression_signature_def, lambda: (None, tf.constant(1.0)), "cannot be None"),
    (sdu.regression_signature_def, lambda: ("a", tf.constant(1.0)), "of type Tensor"),
    (sdu.regression_signature_def, lambda: (tf.constant("a"), None), "cannot be None"),
    (sdu.regression_signature_def, lambda: (tf.constant(1.0), tf.constant(1.0)),
     "must be of type string"),
    (sdu.regression_signature_def, lambda: (tf.constant("a"), tf.constant("b")),
     "must be of type float"),
    (sdu.classification_signature_def, lambda: (None, None, tf.constant(1.0)),
     "cannot be None"),
    (sdu.classification_signature_def, lambda: (tf.constant("a"), None, None),
     "cannot both be None"),
    (sdu.classification_signature_def, lambda: (tf.constant(1.0), tf.constant("b"), None),
     "must be of type string"),
    (sdu.classification_signature_def, lambda: (tf.constant("a"), tf.constant(1.0), None),
     "classes must be a string Tensor"),
    (sdu.classification_signature_def, lambda: (tf.constant("a"), None, tf.constant("b")),
     "scores must be a float Tensor"),
    (sdu.predict_signature_def, lambda: ({}, {"y": tf.constant(1.0)}), "inputs"),
    (sdu.predict_signature_def, lambda: ({"x": tf.constant(1.0)}, None), "outputs"),
]


@pytest.mark.parametrize("fn, args, message", BAD_ARGUMENTS)
def test_bad_arguments(fn, args, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            fn(*args())


def _supervised_parts():
    inputs = {"input-1": tf.constant("a", name="input-1"),
              "input-2": tf.constant("b", name="input-2")}
    loss = {"loss-1": tf.constant(0.45, name="loss-1")}
    predictions = {"classes": tf.constant([100], name="classes")}
    metrics_val = tf.constant(100.0, name="metrics_val")
    metrics = {"metrics/value": metrics_val,
               "metrics/update_op": tf.identity(metrics_val, name="metrics_op")}
    return inputs, loss, predictions, metrics


@pytest.mark.parametrize("fn, method", [
    (sdu.supervised_train_signature_def, sc.SUPERVISED_TRAIN_METHOD_NAME),
    (sdu.supervised_eval_signature_def, sc.SUPERVISED_EVAL_METHOD_NAME),
])
def test_supervised_signature_defs(fn, method):
    with tf.Graph().as_default():
        inputs, loss, predictions, metrics = _supervised_parts()
        sig = fn(inputs, loss, predictions, metrics)
        assert sig.method_name == method
        assert _summary(sig.inputs) == {"input-1": ("input-1:0", types_pb2.DT_STRING, 0),
                                        "input-2": ("input-2:0", types_pb2.DT_STRING, 0)}
        assert _summary(sig.outputs) == {
            "loss-1": ("loss-1:0", types_pb2.DT_FLOAT, 0),
            "classes": ("classes:0", types_pb2.DT_INT32, 1),
            "metrics/value": ("metrics_val:0", types_pb2.DT_FLOAT, 0),
            "metrics/update_op": ("metrics_op:0", types_pb2.DT_FLOAT, 0)}
        with pytest.raises(ValueError):
            fn({}, loss=loss, predictions=predictions, metrics=metrics)
        assert len(fn(inputs, loss=loss).outputs) == 1
        assert len(fn(inputs, metrics=metrics, loss=loss).outputs) == 3


VALID = [
    ({"inputs": _STRING}, {"classes": _STRING, "scores": _FLOAT}, sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _STRING}, {"classes": _STRING}, sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _STRING}, {"scores": _FLOAT}, sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _STRING}, {"outputs": _FLOAT}, sc.REGRESS_METHOD_NAME),
    ({"foo": _STRING, "bar": _FLOAT}, {"baz": _STRING, "qux": _FLOAT},
     sc.PREDICT_METHOD_NAME),
]
INVALID = [
    ({"inputs": _STRING}, {"classes": _STRING, "scores": _FLOAT}, "WRONG method name"),
    ({"inputs": _FLOAT}, {"classes": _STRING, "scores": _FLOAT}, sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _STRING}, {"classes": _FLOAT, "scores": _FLOAT}, sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _STRING}, {"classes": _STRING, "scores": _STRING}, sc.CLASSIFY_METHOD_NAME),
    ({}, {"classes": _STRING, "scores": _FLOAT}, sc.CLASSIFY_METHOD_NAME),
    ({"inputs_WRONG": _STRING}, {"classes": _STRING, "scores": _FLOAT},
     sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _STRING}, {"classes_WRONG": _STRING, "scores": _FLOAT},
     sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _STRING}, {}, sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _STRING}, {"classes": _STRING, "scores": _FLOAT, "extra_WRONG": _STRING},
     sc.CLASSIFY_METHOD_NAME),
    ({"inputs": _FLOAT}, {"outputs": _FLOAT}, sc.REGRESS_METHOD_NAME),
    ({"inputs": _STRING}, {"outputs": _STRING}, sc.REGRESS_METHOD_NAME),
    ({}, {"outputs": _FLOAT}, sc.REGRESS_METHOD_NAME),
    ({"inputs_WRONG": _STRING}, {"outputs": _FLOAT}, sc.REGRESS_METHOD_NAME),
    ({"inputs": _STRING}, {"outputs_WRONG": _FLOAT}, sc.REGRESS_METHOD_NAME),
    ({"inputs": _STRING}, {}, sc.REGRESS_METHOD_NAME),
    ({"inputs": _STRING}, {"outputs": _FLOAT, "extra_WRONG": _STRING},
     sc.REGRESS_METHOD_NAME),
    ({}, {"baz": _STRING, "qux": _FLOAT}, sc.PREDICT_METHOD_NAME),
    ({"foo": _STRING, "bar": _FLOAT}, {}, sc.PREDICT_METHOD_NAME),
]


@pytest.mark.parametrize("inputs, outputs, method", VALID)
def test_valid_signatures_are_accepted(inputs, outputs, method):
    assert sdu.is_valid_signature(sdu.build_signature_def(inputs, outputs, method))


@pytest.mark.parametrize("inputs, outputs, method", INVALID)
def test_invalid_signatures_are_rejected(inputs, outputs, method):
    assert not sdu.is_valid_signature(sdu.build_signature_def(inputs, outputs, method))


def test_none_is_no_valid_signature():
    assert not sdu.is_valid_signature(None)


def test_op_signature_def_and_load_op():
    with tf.Graph().as_default():
        key = "adding_1_and_2_key"
        add = tf.add(1, 2, name="adding_1_and_2")
        sig = sdu.op_signature_def(add, key)
        assert sig.outputs[key].name == add.name
        assert sdu.load_op_from_signature_def(sig, key) is add
        group = tf.group(add, name="grouped")
        sig = sdu.op_signature_def(group, "init")
        assert sig.outputs["init"].dtype == types_pb2.DT_INVALID
        assert sdu.load_op_from_signature_def(sig, "init") is group
        with pytest.raises(tf.errors.NotFoundError, match="could not be found"):
            sdu.load_op_from_signature_def(sig, "missing")


def test_shapes_and_types():
    with tf.Graph().as_default():
        x1 = tf.placeholder(tf.float32, [1, 2], name="x1")
        x2 = tf.placeholder(tf.int32, [None], name="x2")
        y = tf.placeholder(tf.string, name="y")
        sig = sdu.predict_signature_def({"x1": x1, "x2": x2}, {"y": y})
    assert {k: v.as_list() for k, v in sdu.get_signature_def_input_shapes(sig).items()} == {
        "x1": [1, 2], "x2": [None]}
    assert sdu.get_signature_def_input_types(sig) == {"x1": tf.float32, "x2": tf.int32}
    assert sdu.get_signature_def_output_shapes(sig)["y"].ndims is None
    assert sdu.get_signature_def_output_types(sig) == {"y": tf.string}
