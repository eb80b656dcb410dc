"""`tf.xla`: the XLA namespace of TF1 (`tf.xla.experimental.jit_scope`)."""
from trainflow.xla import experimental  # noqa: F401
