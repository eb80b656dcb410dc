"""`tf.saved_model.signature_def_utils`: SignatureDef protos, built generically or for TF
Serving's predict, classify and regress APIs, and their validity checks."""
from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.protos import meta_graph_pb2, types_pb2
from trainflow._src.saved_model import signature_constants as sc
from trainflow._src.saved_model import utils


def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None):
    """A SignatureDef of the given TensorInfo maps, method name and input defaults (Const
    tensors, or TensorProtos).

    Raises:
      ValueError: a default is not a Const tensor or a TensorProto.
    """
    signature_def = meta_graph_pb2.SignatureDef()
    for key, info in (inputs or {}).items():
        signature_def.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        signature_def.outputs[key].CopyFrom(info)
    if method_name is not None:
        signature_def.method_name = method_name
    for key, value in (defaults or {}).items():
        if isinstance(value, Tensor):
            if value.op.type != "Const":
                raise ValueError(f"Unable to convert object {value} of type {type(value)} to "
                                 "TensorProto.")
            value = value.op.get_attr("value")
        signature_def.defaults[key].CopyFrom(value)
    return signature_def


def regression_signature_def(examples, predictions):
    """The `tensorflow/serving/regress` SignatureDef: a string `examples` tensor in, a float
    `predictions` tensor out.

    Raises:
      ValueError: an argument is None or of the wrong kind or dtype.
    """
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError("Expected regression `examples` to be of type Tensor. "
                         f"Found `examples` of type {type(examples)}.")
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    input_info = utils.build_tensor_info(examples)
    if input_info.dtype != types_pb2.DT_STRING:
        raise ValueError("Regression input tensors must be of type string. Found tensors "
                         f"with type {input_info.dtype}.")
    output_info = utils.build_tensor_info(predictions)
    if output_info.dtype != types_pb2.DT_FLOAT:
        raise ValueError("Regression output tensors must be of type float. Found tensors "
                         f"with type {output_info.dtype}.")
    return build_signature_def({sc.REGRESS_INPUTS: input_info},
                               {sc.REGRESS_OUTPUTS: output_info}, sc.REGRESS_METHOD_NAME)


def classification_signature_def(examples, classes, scores):
    """The `tensorflow/serving/classify` SignatureDef: a string `examples` tensor in; string
    `classes` and/or float `scores` out.

    Raises:
      ValueError: `examples` is None or no string Tensor; both outputs are None; an output
        has the wrong dtype.
    """
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError("Classification `examples` must be a string Tensor. Found "
                         f"`examples` of type {type(examples)}.")
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    input_info = utils.build_tensor_info(examples)
    if input_info.dtype != types_pb2.DT_STRING:
        raise ValueError("Classification input tensors must be of type string. Found "
                         f"tensors of type {input_info.dtype}")
    outputs = {}
    if classes is not None:
        info = utils.build_tensor_info(classes)
        if info.dtype != types_pb2.DT_STRING:
            raise ValueError("Classification classes must be a string Tensor. Found "
                             f"tensors of type {info.dtype}")
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = info
    if scores is not None:
        info = utils.build_tensor_info(scores)
        if info.dtype != types_pb2.DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor. Found tensors "
                             f"of type {info.dtype}")
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = info
    return build_signature_def({sc.CLASSIFY_INPUTS: input_info}, outputs,
                               sc.CLASSIFY_METHOD_NAME)


def predict_signature_def(inputs, outputs):
    """The `tensorflow/serving/predict` SignatureDef of {key: tensor} inputs and outputs.

    Raises:
      ValueError: `inputs` or `outputs` is None or empty.
    """
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def(
        {key: utils.build_tensor_info(t) for key, t in inputs.items()},
        {key: utils.build_tensor_info(t) for key, t in outputs.items()},
        sc.PREDICT_METHOD_NAME)


def _supervised_signature_def(method_name, inputs, loss=None, predictions=None, metrics=None):
    if not inputs:
        raise ValueError(f"{method_name} `inputs` cannot be None or empty.")
    signature_inputs = {key: utils.build_tensor_info(t) for key, t in inputs.items()}
    signature_outputs = {}
    for output_set in (loss, predictions, metrics):
        if output_set is not None:
            signature_outputs.update(
                {key: utils.build_tensor_info(t) for key, t in output_set.items()})
    return build_signature_def(signature_inputs, signature_outputs, method_name)


def supervised_train_signature_def(inputs, loss=None, predictions=None, metrics=None):
    """The `tensorflow/supervised/training` SignatureDef (what Estimator exports)."""
    return _supervised_signature_def(sc.SUPERVISED_TRAIN_METHOD_NAME, inputs, loss=loss,
                                     predictions=predictions, metrics=metrics)


def supervised_eval_signature_def(inputs, loss=None, predictions=None, metrics=None):
    """The `tensorflow/supervised/eval` SignatureDef (what Estimator exports)."""
    return _supervised_signature_def(sc.SUPERVISED_EVAL_METHOD_NAME, inputs, loss=loss,
                                     predictions=predictions, metrics=metrics)


def op_signature_def(op, key):
    """A SignatureDef whose one output, under `key`, names the operation `op`."""
    return build_signature_def(outputs={key: utils.build_tensor_info_from_op(op)})


def load_op_from_signature_def(signature_def, key, import_scope=None):
    """The operation that `signature_def.outputs[key]` names.

    Raises:
      errors.NotFoundError: the signature has no such key.
    """
    if key not in signature_def.outputs:
        raise errors.NotFoundError(
            None, None, f"The key \"{key}\" could not be found in the signature def: "
                        f"{signature_def}")
    return utils.get_element_from_tensor_info(signature_def.outputs[key],
                                              import_scope=import_scope)


def get_signature_def_input_shapes(signature):
    """{input key: TensorShape} of a SignatureDef."""
    return {k: TensorShape(info.tensor_shape) for k, info in signature.inputs.items()}


def get_signature_def_input_types(signature):
    """{input key: DType} of a SignatureDef."""
    return {k: dtypes.as_dtype(info.dtype) for k, info in signature.inputs.items()}


def get_signature_def_output_shapes(signature):
    """{output key: TensorShape} of a SignatureDef."""
    return {k: TensorShape(info.tensor_shape) for k, info in signature.outputs.items()}


def get_signature_def_output_types(signature):
    """{output key: DType} of a SignatureDef."""
    return {k: dtypes.as_dtype(info.dtype) for k, info in signature.outputs.items()}


def _is_valid_predict_signature(signature_def):
    return bool(signature_def.inputs) and bool(signature_def.outputs)


def _is_valid_regression_signature(signature_def):
    return (set(signature_def.inputs) == {sc.REGRESS_INPUTS}
            and signature_def.inputs[sc.REGRESS_INPUTS].dtype == types_pb2.DT_STRING
            and set(signature_def.outputs) == {sc.REGRESS_OUTPUTS}
            and signature_def.outputs[sc.REGRESS_OUTPUTS].dtype == types_pb2.DT_FLOAT)


def _is_valid_classification_signature(signature_def):
    outputs = signature_def.outputs
    wanted = {sc.CLASSIFY_OUTPUT_CLASSES: types_pb2.DT_STRING,
              sc.CLASSIFY_OUTPUT_SCORES: types_pb2.DT_FLOAT}
    return (set(signature_def.inputs) == {sc.CLASSIFY_INPUTS}
            and signature_def.inputs[sc.CLASSIFY_INPUTS].dtype == types_pb2.DT_STRING
            and bool(outputs) and not set(outputs) - set(wanted)
            and all(outputs[k].dtype == dtype for k, dtype in wanted.items() if k in outputs))


_VALIDATORS = {sc.PREDICT_METHOD_NAME: _is_valid_predict_signature,
               sc.REGRESS_METHOD_NAME: _is_valid_regression_signature,
               sc.CLASSIFY_METHOD_NAME: _is_valid_classification_signature}


def is_valid_signature(signature_def):
    """Whether a SignatureDef is a valid predict, classify or regress signature for TF
    Serving (False for None or any other method name)."""
    if signature_def is None:
        return False
    validator = _VALIDATORS.get(signature_def.method_name)
    return bool(validator and validator(signature_def))
