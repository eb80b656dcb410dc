"""Writes the public symbols of TensorFlow's TF1 API (`tf.compat.v1`), one `tf.NAME` a
line, for `trainflow ops` (src/trainflow/_src/tools/data/tf1_api_symbols.txt).

Run it under a Python with TensorFlow installed:

    python scripts/tf1_api_symbols.py > src/trainflow/_src/tools/data/tf1_api_symbols.txt

It walks `tf.compat.v1` and its sub-namespaces. Left out: `tf.raw_ops` (one entry per
op type: `trainflow ops` lists op types from the registry instead), `tf.keras` and
`tf.estimator` (separate libraries that trainflow does not rebuild), `tf.compat.v1` /
`tf.compat.v2` inside the tree (the namespace itself and TF2's API), and private names.
"""
import sys
import types

SKIP = {"raw_ops", "keras", "estimator", "v1", "v2", "tools", "core", "python"}
# `tf.layers` is built on Keras 2 (tf_keras), which a TF 2.16+ install without tf_keras
# cannot import; its TF 1.15 names, from TF 1.15's API documentation:
LAYERS = """AveragePooling1D AveragePooling2D AveragePooling3D BatchNormalization Conv1D Conv2D
Conv2DTranspose Conv3D Conv3DTranspose Dense Dropout Flatten InputSpec Layer MaxPooling1D
MaxPooling2D MaxPooling3D SeparableConv1D SeparableConv2D average_pooling1d
average_pooling2d average_pooling3d batch_normalization conv1d conv2d conv2d_transpose conv3d
conv3d_transpose dense dropout flatten max_pooling1d max_pooling2d max_pooling3d
separable_conv1d separable_conv2d experimental.keras_style_scope
experimental.set_keras_style""".split()
# `tf.nn.rnn_cell` is built on Keras 2 too; its TF 1.15 names, from TF 1.15's API documentation:
RNN_CELL = """BasicLSTMCell BasicRNNCell DeviceWrapper DropoutWrapper GRUCell LSTMCell
LSTMStateTuple MultiRNNCell RNNCell ResidualWrapper""".split()


# `tf.estimator` is tensorflow_estimator's (removed in TF 2.16); its TF 1.15
# `tf.compat.v1.estimator` names, from tensorflow_estimator 1.15's estimator_export calls:
ESTIMATOR = """BaselineClassifier BaselineEstimator BaselineRegressor BestExporter BinaryClassHead
BoostedTreesClassifier BoostedTreesEstimator BoostedTreesRegressor CheckpointSaverHook
CheckpointSaverListener DNNClassifier DNNEstimator DNNLinearCombinedClassifier
DNNLinearCombinedEstimator DNNLinearCombinedRegressor DNNRegressor Estimator EstimatorSpec
EvalSpec Exporter FeedFnHook FinalExporter FinalOpsHook GlobalStepWaiterHook Head
LatestExporter LinearClassifier LinearEstimator LinearRegressor LoggingTensorHook
LogisticRegressionHead ModeKeys MultiClassHead MultiHead MultiLabelHead
NanLossDuringTrainingError NanTensorHook PoissonRegressionHead ProfilerHook RegressionHead
RunConfig SecondOrStepTimer SessionRunArgs SessionRunContext SessionRunHook SessionRunValues
StepCounterHook StopAtStepHook SummarySaverHook TrainSpec VocabInfo WarmStartSettings
add_metrics classifier_parse_example_spec regressor_parse_example_spec train_and_evaluate
experimental.InMemoryEvaluatorHook experimental.KMeans experimental.LinearSDCA
experimental.build_raw_supervised_input_receiver_fn experimental.call_logit_fn
experimental.dnn_logit_fn_builder experimental.linear_logit_fn_builder
experimental.make_early_stopping_hook experimental.make_stop_at_checkpoint_step_hook
experimental.stop_if_higher_hook experimental.stop_if_lower_hook
experimental.stop_if_no_decrease_hook experimental.stop_if_no_increase_hook
export.ClassificationOutput export.ExportOutput export.PredictOutput export.RegressionOutput
export.ServingInputReceiver export.TensorServingInputReceiver
export.build_parsing_serving_input_receiver_fn export.build_raw_serving_input_receiver_fn
inputs.numpy_input_fn inputs.pandas_input_fn""".split()


def prefix_is_api(module):
    return module.__name__.startswith(("tensorflow._api", "tensorflow.compat"))


def walk(module, prefix, seen, out):
    for name in sorted(dir(module)):
        if name.startswith("_") or name in SKIP:
            continue
        try:
            value = getattr(module, name)
        except Exception:  # noqa: BLE001 - lazily loaded parts that fail to import
            continue
        path = f"{prefix}.{name}"
        if isinstance(value, types.ModuleType):
            try:
                module_name = value.__name__
            except Exception:  # noqa: BLE001 - a lazy loader of another library
                continue
            # Descend into TF's generated API modules only (and from them into a re-exported
            # library module such as tf.app.flags, but not below it).
            if (id(value) in seen or not module_name.startswith("tensorflow")
                    or not prefix_is_api(module)):
                continue
            seen.add(id(value))
            walk(value, path, seen, out)
        else:
            out.add(path)


def main():
    import tensorflow.compat.v1 as tf
    out = set()
    walk(tf, "tf", {id(tf)}, out)
    if not any(p.startswith("tf.layers.") for p in out):
        out.update("tf.layers." + name for name in LAYERS)
    if not any(p.startswith("tf.nn.rnn_cell.") for p in out):
        out.update("tf.nn.rnn_cell." + name for name in RNN_CELL)
    if not any(p.startswith("tf.estimator.") for p in out):
        out.update("tf.estimator." + name for name in ESTIMATOR)
    version = tf.version.VERSION
    sys.stdout.write(f"# TensorFlow {version}'s tf.compat.v1 namespace (TF 1.15's API "
                     "with the few names TF 2.x added to it); made by "
                     "scripts/tf1_api_symbols.py\n")
    sys.stdout.write("".join(p + "\n" for p in sorted(out)))


if __name__ == "__main__":
    main()
