"""The `tf.saved_model` namespace (TF 1.x's, as `tf.compat.v1.saved_model`): SavedModel
building and loading, signatures, tags and the file layout's constants."""
from trainflow._src.saved_model.builder import SavedModelBuilder as Builder  # noqa: F401
from trainflow._src.saved_model.constants import (  # noqa: F401
    ASSETS_DIRECTORY, ASSETS_KEY, DEBUG_DIRECTORY, DEBUG_INFO_FILENAME_PB, LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY, SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
from trainflow._src.saved_model.loader import (  # noqa: F401
    contains_saved_model, load, maybe_saved_model_directory)
from trainflow._src.saved_model.main_op import main_op_with_restore  # noqa: F401
from trainflow._src.saved_model.signature_constants import (  # noqa: F401
    CLASSIFY_INPUTS, CLASSIFY_METHOD_NAME, CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_INPUTS, PREDICT_METHOD_NAME, PREDICT_OUTPUTS,
    REGRESS_INPUTS, REGRESS_METHOD_NAME, REGRESS_OUTPUTS)
from trainflow._src.saved_model.signature_def_utils import (  # noqa: F401
    build_signature_def, classification_signature_def, is_valid_signature,
    predict_signature_def, regression_signature_def)
from trainflow._src.saved_model.simple_save import simple_save  # noqa: F401
from trainflow._src.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING  # noqa: F401
from trainflow._src.saved_model.utils import (  # noqa: F401
    build_tensor_info, get_tensor_from_tensor_info)
from trainflow.saved_model import (  # noqa: F401
    builder, constants, loader, main_op, signature_constants, signature_def_utils,
    tag_constants, utils)
