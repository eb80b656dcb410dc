"""`tf.estimator.export`: serving input receivers and export outputs."""
from trainflow._src.estimator.export import (  # noqa: F401
    ServingInputReceiver, TensorServingInputReceiver, build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn)
from trainflow._src.estimator.export_output import (  # noqa: F401
    ClassificationOutput, ExportOutput, PredictOutput, RegressionOutput)
