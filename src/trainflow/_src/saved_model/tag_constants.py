"""`tf.saved_model.tag_constants`: the standard tags of a MetaGraphDef in a SavedModel."""

SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
GPU = "gpu"
TPU = "tpu"
