"""`tf.estimator.inputs`: queue-fed input functions for NumPy arrays and pandas frames."""
from trainflow._src.estimator.inputs.numpy_io import numpy_input_fn  # noqa: F401
from trainflow._src.estimator.inputs.pandas_io import pandas_input_fn  # noqa: F401
