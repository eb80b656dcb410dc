"""`tf.estimator.inputs`: input functions that feed NumPy arrays and pandas DataFrames
through a queue (TF 1.15's numpy_io, pandas_io and queues/feeding_functions)."""
