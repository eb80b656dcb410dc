"""The `tf.saved_model.utils` namespace."""
from trainflow._src.saved_model.utils import (  # noqa: F401
    build_tensor_info, get_tensor_from_tensor_info)
