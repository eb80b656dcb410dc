"""The `tf.saved_model.main_op` namespace."""
from trainflow._src.saved_model.main_op import main_op, main_op_with_restore  # noqa: F401
