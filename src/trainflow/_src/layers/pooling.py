"""`tf.layers` pooling: max/average pooling in 1-D, 2-D and 3-D, classes and functions.

The ops are `MaxPool` / `AvgPool` in the layer's scope (`max_pooling2d/MaxPool`); the
1-D layers wrap them in `ExpandDims` / `Squeeze`; the 3-D ones are `MaxPool3D` /
`AvgPool3D`.
"""
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.layers import utils
from trainflow._src.layers.base import InputSpec, Layer
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.nn import conv3d, pool

__all__ = ["AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "AvgPool1D",
           "AvgPool2D", "AvgPool3D", "MaxPool1D", "MaxPool2D", "MaxPool3D", "MaxPooling1D",
           "MaxPooling2D", "MaxPooling3D", "average_pooling1d", "average_pooling2d",
           "average_pooling3d", "max_pooling1d", "max_pooling2d", "max_pooling3d"]


class _Pooling(Layer):
    """Pooling over `rank` spatial axes with `pool_fn` ("max" or "avg").

    Args:
      pool_size: an int or `rank` ints.
      strides: an int or `rank` ints (default pool_size).
      padding: "valid" or "same".
      data_format: "channels_last" or "channels_first".
      name: as Layer.
    """

    def __init__(self, rank, pool_fn, pool_size, strides=None, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rank = rank
        self.pool_fn = pool_fn
        self.pool_size = utils.normalize_tuple(pool_size, rank, "pool_size")
        self.strides = self.pool_size if strides is None else \
            utils.normalize_tuple(strides, rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=rank + 2)

    def _pool(self, inputs, window, strides, data_format):
        if self.rank == 3:
            fn = conv3d.max_pool3d if self.pool_fn == "max" else conv3d.avg_pool3d
            return fn(inputs, ksize=window, strides=strides, padding=self.padding.upper(),
                      data_format="NCDHW" if data_format == "NCHW" else "NDHWC")
        fn = pool.max_pool if self.pool_fn == "max" else pool.avg_pool
        return fn(inputs, ksize=window, strides=strides, padding=self.padding.upper(),
                  data_format=data_format)

    def call(self, inputs):
        first = self.data_format == "channels_first"
        if self.rank == 1:
            axis = 3 if first else 2
            inputs = array_ops.expand_dims(inputs, axis)
            pool, strides = self.pool_size + (1,), self.strides + (1,)
        else:
            pool, strides = self.pool_size, self.strides
        window = [1, 1] + list(pool) if first else [1] + list(pool) + [1]
        steps = [1, 1] + list(strides) if first else [1] + list(strides) + [1]
        outputs = self._pool(inputs, window, steps, "NCHW" if first else "NHWC")
        if self.rank == 1:
            outputs = array_ops.squeeze(outputs, [axis])
        return outputs

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).with_rank(self.rank + 2).as_list()
        first = self.data_format == "channels_first"
        spatial = dims[2:] if first else dims[1:-1]
        out = [utils.conv_output_length(n, k, self.padding, s)
               for n, k, s in zip(spatial, self.pool_size, self.strides)]
        return TensorShape([dims[0], dims[1]] + out if first else [dims[0]] + out + [dims[-1]])


class MaxPooling1D(_Pooling):
    """Max pooling over [batch, steps, channels] (`tf.layers.MaxPooling1D`); arguments
    as `_Pooling`."""

    def __init__(self, pool_size, strides=None, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(1, "max", pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling1D(_Pooling):
    """Average pooling over [batch, steps, channels] (`tf.layers.AveragePooling1D`);
    arguments as `_Pooling`."""

    def __init__(self, pool_size, strides=None, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(1, "avg", pool_size, strides, padding, data_format, name, **kwargs)


class MaxPooling2D(_Pooling):
    """2-D max pooling (`tf.layers.MaxPooling2D`); arguments as `_Pooling`."""

    def __init__(self, pool_size, strides=None, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(2, "max", pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling2D(_Pooling):
    """2-D average pooling (`tf.layers.AveragePooling2D`); arguments as `_Pooling`."""

    def __init__(self, pool_size, strides=None, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(2, "avg", pool_size, strides, padding, data_format, name, **kwargs)


class MaxPooling3D(_Pooling):
    """3-D max pooling over [batch, depth, height, width, channels] (or channels first)
    (`tf.layers.MaxPooling3D`); arguments as `_Pooling`."""

    def __init__(self, pool_size, strides=None, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(3, "max", pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling3D(_Pooling):
    """3-D average pooling (`tf.layers.AveragePooling3D`); arguments as `_Pooling`."""

    def __init__(self, pool_size, strides=None, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(3, "avg", pool_size, strides, padding, data_format, name, **kwargs)


MaxPool1D, AvgPool1D, MaxPool2D, AvgPool2D = (MaxPooling1D, AveragePooling1D, MaxPooling2D,
                                              AveragePooling2D)
MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """Functional `MaxPooling1D` (`tf.layers.max_pooling1d`)."""
    return MaxPooling1D(pool_size, strides, padding, data_format, name).apply(inputs)


def average_pooling1d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """Functional `AveragePooling1D` (`tf.layers.average_pooling1d`)."""
    return AveragePooling1D(pool_size, strides, padding, data_format, name).apply(inputs)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """Functional `MaxPooling2D` (`tf.layers.max_pooling2d`)."""
    return MaxPooling2D(pool_size, strides, padding, data_format, name).apply(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """Functional `AveragePooling2D` (`tf.layers.average_pooling2d`)."""
    return AveragePooling2D(pool_size, strides, padding, data_format, name).apply(inputs)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """Functional `MaxPooling3D` (`tf.layers.max_pooling3d`)."""
    return MaxPooling3D(pool_size, strides, padding, data_format, name).apply(inputs)


def average_pooling3d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """Functional `AveragePooling3D` (`tf.layers.average_pooling3d`)."""
    return AveragePooling3D(pool_size, strides, padding, data_format, name).apply(inputs)
