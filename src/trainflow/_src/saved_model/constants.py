"""`tf.saved_model.constants`: the names of a SavedModel's files, folders and collections
(TensorFlow's values)."""

# Subdirectory holding the asset files; `assets.extra` holds files only clients read.
ASSETS_DIRECTORY = "assets"
EXTRA_ASSETS_DIRECTORY = "assets.extra"
# Collection key of the AssetFileDefs (as `Any` protos).
ASSETS_KEY = "saved_model_assets"
# Subdirectory of the debug info, and its file.
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
# Collection keys of the ops run after the variables are restored.
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
TRAIN_OP_KEY = "saved_model_train_op"
# Signature keys TF reserves for the init and train ops of a TF2 builder.
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"
# The schema version of the SavedModel protos written.
SAVED_MODEL_SCHEMA_VERSION = 1
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
# The variables subdirectory and the checkpoint prefix inside it.
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
