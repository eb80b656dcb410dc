"""The `tf.saved_model.tag_constants` namespace."""
from trainflow._src.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING  # noqa: F401
