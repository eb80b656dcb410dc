"""The `tf.saved_model.builder` namespace."""
from trainflow._src.saved_model.builder import SavedModelBuilder  # noqa: F401
