"""`tf.layers` 3-D convolutions: Conv3D, Conv3DTranspose and their functional forms.

Kernels are [kd, kh, kw, in_channels, filters] ([kd, kh, kw, filters, in_channels] for
the transpose); the ops are `conv3d/Conv3D` and `conv3d_transpose/conv3d_transpose`
(Conv3DBackpropInputV2), followed by `BiasAdd` and the activation.
"""
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.layers import utils
from trainflow._src.layers.convolutional import _ZEROS, _Conv, _conv_kwargs
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.nn import conv3d as conv3d_ops

__all__ = ["Conv3D", "Conv3DTranspose", "Convolution3D", "Convolution3DTranspose",
           "conv3d", "conv3d_transpose", "convolution3d", "convolution3d_transpose"]


class Conv3D(_Conv):
    """3-D convolution layer over [batch, depth, height, width, channels] (or channels
    first) (`tf.layers.Conv3D`); see `_Conv` for the arguments."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=_ZEROS,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(3, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, trainable, name, **kwargs)


class Conv3DTranspose(Conv3D):
    """Transposed 3-D convolution layer (`tf.layers.Conv3DTranspose`).

    The kernel is [kd, kh, kw, filters, in_channels]; each spatial output size is
    `in * stride` ("same") or `in * stride + max(k - stride, 0)` ("valid").
    """

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, (1, 1, 1),
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, trainable, name, **kwargs)

    def _kernel_shape(self, input_dim):
        return self.kernel_size + (self.filters, input_dim)

    def _spatial_axes(self):
        return (2, 3, 4) if self.data_format == "channels_first" else (1, 2, 3)

    def _convolve(self, inputs):
        static = inputs.shape.as_list()
        dynamic = array_ops.shape(inputs)
        sizes = []
        for axis, k, s in zip(self._spatial_axes(), self.kernel_size, self.strides):
            n = static[axis] if static[axis] is not None else dynamic[axis]
            sizes.append(utils.deconv_output_length(n, k, self.padding, s))
        first = self.data_format == "channels_first"
        batch = dynamic[0]
        output_shape = [batch, self.filters] + sizes if first else \
            [batch] + sizes + [self.filters]
        steps = (1, 1) + self.strides if first else (1,) + self.strides + (1,)
        outputs = conv3d_ops.conv3d_transpose(
            inputs, self.kernel, array_ops.stack(output_shape), strides=list(steps),
            padding=self.padding.upper(),
            data_format=utils.convert_data_format(self.data_format, 5))
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        return outputs

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).with_rank(5).as_list()
        dims[1 if self.data_format == "channels_first" else 4] = self.filters
        for axis, k, s in zip(self._spatial_axes(), self.kernel_size, self.strides):
            dims[axis] = utils.deconv_output_length(dims[axis], k, self.padding, s)
        return TensorShape(dims)


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
           use_bias=True, kernel_initializer=None, bias_initializer=_ZEROS,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """Functional `Conv3D` (`tf.layers.conv3d`); returns the output tensor."""
    layer = Conv3D(filters, kernel_size, strides=strides, padding=padding,
                   data_format=data_format, dilation_rate=dilation_rate,
                   **_conv_kwargs(activation, use_bias, kernel_initializer, bias_initializer,
                                  kernel_regularizer, bias_regularizer, activity_regularizer,
                                  kernel_constraint, bias_constraint, trainable, name, reuse))
    return layer.apply(inputs)


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """Functional `Conv3DTranspose` (`tf.layers.conv3d_transpose`); returns the output."""
    layer = Conv3DTranspose(filters, kernel_size, strides=strides, padding=padding,
                            data_format=data_format,
                            **_conv_kwargs(activation, use_bias, kernel_initializer,
                                           bias_initializer, kernel_regularizer,
                                           bias_regularizer, activity_regularizer,
                                           kernel_constraint, bias_constraint, trainable,
                                           name, reuse))
    return layer.apply(inputs)


# TF1's aliases.
Convolution3D = Conv3D
Convolution3DTranspose = Conv3DTranspose
convolution3d = conv3d
convolution3d_transpose = conv3d_transpose
