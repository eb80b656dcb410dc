"""The `tf.saved_model.loader` namespace."""
from trainflow._src.saved_model.loader import load, maybe_saved_model_directory  # noqa: F401
