"""`tf.layers`: TF1's layers with variable-scope semantics (`dense`, `conv2d`,
`max_pooling2d`, `dropout`, `batch_normalization`, ... and their classes)."""
from trainflow._src.layers.base import InputSpec, Layer  # noqa: F401
from trainflow._src.layers.convolutional import *  # noqa: F401,F403
from trainflow._src.layers.core import *  # noqa: F401,F403
from trainflow._src.layers.normalization import *  # noqa: F401,F403
from trainflow._src.layers.pooling import *  # noqa: F401,F403
from trainflow._src.layers import convolutional, core, normalization, pooling

__all__ = sorted(["InputSpec", "Layer"] + convolutional.__all__ + core.__all__ +
                 normalization.__all__ + pooling.__all__)
del convolutional, core, normalization, pooling
