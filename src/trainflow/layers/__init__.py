"""`tf.layers`: TF1's layers with variable-scope semantics (`dense`, `conv2d`,
`max_pooling2d`, `dropout`, `batch_normalization`, ... and their classes)."""
from trainflow._src.layers.base import InputSpec, Layer  # noqa: F401
from trainflow._src.layers.convolutional import (  # noqa: F401
    Conv1D, Conv2D, Conv2DTranspose, conv1d, conv2d, conv2d_transpose)
from trainflow._src.layers.convolutional3d import (  # noqa: F401
    Conv3D, Conv3DTranspose, conv3d, conv3d_transpose)
from trainflow._src.layers.core import (  # noqa: F401
    Dense, Dropout, Flatten, dense, dropout, flatten)
from trainflow._src.layers.normalization import (  # noqa: F401
    BatchNormalization, batch_normalization)
from trainflow._src.layers.pooling import (  # noqa: F401
    AveragePooling1D, AveragePooling2D, AveragePooling3D, MaxPooling1D, MaxPooling2D,
    MaxPooling3D, average_pooling1d, average_pooling2d, average_pooling3d, max_pooling1d,
    max_pooling2d, max_pooling3d)
from trainflow._src.layers.separable import (  # noqa: F401
    SeparableConv1D, SeparableConv2D, separable_conv1d, separable_conv2d)

__all__ = sorted(n for n in dir() if not n.startswith("_"))
