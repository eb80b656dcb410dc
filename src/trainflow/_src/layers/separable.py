"""`tf.layers` separable convolutions: SeparableConv1D, SeparableConv2D and their
functional forms.

A depthwise convolution (`depthwise_kernel`: spatial + [in_channels, depth_multiplier])
then a 1x1 convolution (`pointwise_kernel`: [1(, 1), in_channels * depth_multiplier,
filters]), as one `tf.nn.separable_conv2d` named `separable_conv2d`; the 1-D layer runs
it on inputs and kernels expanded by one spatial axis and squeezes the result.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.layers import utils
from trainflow._src.layers.base import InputSpec
from trainflow._src.layers.convolutional import _ZEROS, _Conv
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.nn import conv_composite, nn_ops

__all__ = ["SeparableConv1D", "SeparableConv2D", "SeparableConvolution1D",
           "SeparableConvolution2D", "separable_conv1d", "separable_conv2d",
           "separable_convolution1d", "separable_convolution2d"]


class _SeparableConv(_Conv):
    """Depthwise-separable convolution over `rank` (1 or 2) spatial axes.

    Args:
      depth_multiplier: depthwise output channels per input channel.
      depthwise_initializer, pointwise_initializer, depthwise_regularizer,
      pointwise_regularizer, depthwise_constraint, pointwise_constraint: for the two
        kernels; the other arguments as `_Conv`.
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=_ZEROS,
                 depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(rank, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, activation, use_bias, None, bias_initializer, None,
                         bias_regularizer, activity_regularizer, None, bias_constraint,
                         trainable, name, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = utils.get_initializer(depthwise_initializer)
        self.pointwise_initializer = utils.get_initializer(pointwise_initializer)
        self.depthwise_regularizer = utils.get_regularizer(depthwise_regularizer)
        self.pointwise_regularizer = utils.get_regularizer(pointwise_regularizer)
        self.depthwise_constraint = utils.get_constraint(depthwise_constraint)
        self.pointwise_constraint = utils.get_constraint(pointwise_constraint)
        self.depthwise_kernel = None
        self.pointwise_kernel = None

    def build(self, input_shape):
        dims = TensorShape(input_shape).with_rank(self.rank + 2).as_list()
        input_dim = dims[self._channel_axis]
        if input_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: input_dim})
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=self.kernel_size + (input_dim, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, trainable=True, dtype=dtype)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            shape=(1,) * self.rank + (self.depth_multiplier * input_dim, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, trainable=True, dtype=dtype)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(self.filters,),
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, trainable=True,
                                        dtype=dtype)
        self.built = True

    def _bias_add(self, outputs):
        fmt = "NCHW" if self.data_format == "channels_first" else "NHWC"
        return nn_ops.bias_add(outputs, self.bias, data_format=fmt)


class SeparableConv2D(_SeparableConv):
    """Depthwise-separable 2-D convolution (`tf.layers.SeparableConv2D`); arguments as
    `_SeparableConv`."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=_ZEROS,
                 depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, depth_multiplier, activation, use_bias,
                         depthwise_initializer, pointwise_initializer, bias_initializer,
                         depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, pointwise_constraint,
                         bias_constraint, trainable, name, **kwargs)

    def call(self, inputs):
        first = self.data_format == "channels_first"
        strides = (1, 1) + self.strides if first else (1,) + self.strides + (1,)
        outputs = conv_composite.separable_conv2d(
            inputs, self.depthwise_kernel, self.pointwise_kernel, strides=list(strides),
            padding=self.padding.upper(), rate=list(self.dilation_rate),
            data_format=utils.convert_data_format(self.data_format, 4))
        if self.use_bias:
            outputs = self._bias_add(outputs)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class SeparableConv1D(_SeparableConv):
    """Depthwise-separable 1-D convolution (`tf.layers.SeparableConv1D`); arguments as
    `_SeparableConv`."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=_ZEROS,
                 depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, depth_multiplier, activation, use_bias,
                         depthwise_initializer, pointwise_initializer, bias_initializer,
                         depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, pointwise_constraint,
                         bias_constraint, trainable, name, **kwargs)

    def call(self, inputs):
        first = self.data_format == "channels_first"
        # TF repeats the one stride over the added axis of size 1 too.
        strides = (1, 1) + self.strides * 2 if first else (1,) + self.strides * 2 + (1,)
        axis = 2 if first else 1
        inputs = array_ops.expand_dims(inputs, axis)
        depthwise = array_ops.expand_dims(self.depthwise_kernel, 0)
        pointwise = array_ops.expand_dims(self.pointwise_kernel, 0)
        outputs = conv_composite.separable_conv2d(
            inputs, depthwise, pointwise, strides=list(strides),
            padding=self.padding.upper(), rate=[1] + list(self.dilation_rate),
            data_format=utils.convert_data_format(self.data_format, 4))
        if self.use_bias:
            outputs = self._bias_add(outputs)
        outputs = array_ops.squeeze(outputs, [axis])
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


def _separable_kwargs(depth_multiplier, activation, use_bias, depthwise_initializer,
                      pointwise_initializer, bias_initializer, depthwise_regularizer,
                      pointwise_regularizer, bias_regularizer, activity_regularizer,
                      depthwise_constraint, pointwise_constraint, bias_constraint, trainable,
                      name, reuse):
    return dict(depth_multiplier=depth_multiplier, activation=activation, use_bias=use_bias,
                depthwise_initializer=depthwise_initializer,
                pointwise_initializer=pointwise_initializer,
                bias_initializer=bias_initializer, depthwise_regularizer=depthwise_regularizer,
                pointwise_regularizer=pointwise_regularizer,
                bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                depthwise_constraint=depthwise_constraint,
                pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
                trainable=trainable, name=name, _scope=name, _reuse=reuse)


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
                     data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=_ZEROS,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """Functional `SeparableConv1D` (`tf.layers.separable_conv1d`); returns the output."""
    layer = SeparableConv1D(
        filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
        dilation_rate=dilation_rate,
        **_separable_kwargs(depth_multiplier, activation, use_bias, depthwise_initializer,
                            pointwise_initializer, bias_initializer, depthwise_regularizer,
                            pointwise_regularizer, bias_regularizer, activity_regularizer,
                            depthwise_constraint, pointwise_constraint, bias_constraint,
                            trainable, name, reuse))
    return layer.apply(inputs)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=_ZEROS,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """Functional `SeparableConv2D` (`tf.layers.separable_conv2d`); returns the output."""
    layer = SeparableConv2D(
        filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
        dilation_rate=dilation_rate,
        **_separable_kwargs(depth_multiplier, activation, use_bias, depthwise_initializer,
                            pointwise_initializer, bias_initializer, depthwise_regularizer,
                            pointwise_regularizer, bias_regularizer, activity_regularizer,
                            depthwise_constraint, pointwise_constraint, bias_constraint,
                            trainable, name, reuse))
    return layer.apply(inputs)


# TF1's aliases.
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D
separable_convolution1d = separable_conv1d
separable_convolution2d = separable_conv2d
