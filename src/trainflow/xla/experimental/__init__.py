"""`tf.xla.experimental`: `jit_scope`, TF1's per-scope XLA marker."""
from trainflow._src.xla.jit_scope import jit_scope  # noqa: F401
