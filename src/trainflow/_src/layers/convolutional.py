"""`tf.layers` convolutions: Conv1D, Conv2D, Conv2DTranspose and their functional forms.

Kernels are [*kernel_size, in_channels, filters] ([kh, kw, filters, in_channels] for
the transpose); the op is named after the class (`conv2d/Conv2D`, `conv1d/Conv1D`,
`conv2d_transpose/conv2d_transpose`), followed by `BiasAdd` and the activation.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.layers import utils
from trainflow._src.layers.base import InputSpec, Layer
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.nn import conv, conv3d, conv_composite, nn_ops
from trainflow._src.ops.state import init_ops

__all__ = ["Conv1D", "Conv2D", "Conv2DTranspose", "Convolution1D", "Convolution2D",
           "Convolution2DTranspose", "Deconvolution2D", "conv1d", "conv2d", "conv2d_transpose",
           "convolution1d", "convolution2d", "convolution2d_transpose", "deconvolution2d"]


_ZEROS = init_ops.zeros_initializer()


class _Conv(Layer):
    """N-D convolution layer (N = rank, 1, 2 or 3): `activation(conv(inputs, kernel) + bias)`.

    Args:
      rank: number of spatial dimensions.
      filters: number of output channels.
      kernel_size: an int or `rank` ints.
      strides: an int or `rank` ints (strides > 1 and dilation_rate > 1 exclude
        each other).
      padding: "valid" or "same".
      data_format: "channels_last" or "channels_first".
      dilation_rate: an int or `rank` ints.
      activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
      bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint,
      trainable, name: as for Dense.
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=utils.get_regularizer(activity_regularizer),
                         **kwargs)
        self.rank = rank
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError("Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.kernel_size = utils.normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = utils.normalize_tuple(strides, rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.dilation_rate = utils.normalize_tuple(dilation_rate, rank, "dilation_rate")
        if any(s > 1 for s in self.strides) and any(d > 1 for d in self.dilation_rate):
            raise ValueError("`strides > 1` not supported in conjunction with "
                             f"`dilation_rate > 1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        utils.set_kernel_bias_args(self, activation, use_bias, kernel_initializer,
                                   bias_initializer, kernel_regularizer, bias_regularizer,
                                   kernel_constraint, bias_constraint)
        self.input_spec = InputSpec(ndim=rank + 2)

    @property
    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def _kernel_shape(self, input_dim):
        return self.kernel_size + (input_dim, self.filters)

    def build(self, input_shape):
        dims = TensorShape(input_shape).with_rank(self.rank + 2).as_list()
        input_dim = dims[self._channel_axis]
        if input_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        utils.add_kernel_and_bias(self, self._kernel_shape(input_dim), (self.filters,), dtype)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: input_dim})
        self.built = True

    def _convolve(self, inputs):
        fmt = utils.convert_data_format(self.data_format, self.rank + 2)
        if self.rank == 1:
            return conv_composite.conv1d(inputs, self.kernel, stride=list(self.strides),
                                            padding=self.padding.upper(), data_format=fmt,
                                            dilations=list(self.dilation_rate),
                                            name="Conv1D")
        if self.rank == 3:
            first = self.data_format == "channels_first"
            steps = (1, 1) + self.strides if first else (1,) + self.strides + (1,)
            rates = (1, 1) + self.dilation_rate if first else (1,) + self.dilation_rate + (1,)
            return conv3d.conv3d(inputs, self.kernel, strides=list(steps),
                                 padding=self.padding.upper(), data_format=fmt,
                                 dilations=list(rates), name="Conv3D")
        return conv.conv2d(inputs, self.kernel, strides=list(self.strides),
                                  padding=self.padding.upper(), data_format=fmt,
                                  dilations=list(self.dilation_rate), name="Conv2D")

    def _add_bias(self, outputs):
        if self.data_format == "channels_first":
            if self.rank == 1:
                # bias_add wants the channels last or a rank >= 3 NCHW tensor: broadcast.
                return outputs + array_ops.reshape(self.bias, (1, self.filters, 1))
            return nn_ops.bias_add(outputs, self.bias, data_format="NCHW")
        return nn_ops.bias_add(outputs, self.bias, data_format="NHWC")

    def call(self, inputs):
        outputs = self._convolve(inputs)
        if self.use_bias:
            outputs = self._add_bias(outputs)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).with_rank(self.rank + 2).as_list()
        spatial = dims[2:] if self.data_format == "channels_first" else dims[1:-1]
        out = [utils.conv_output_length(n, k, self.padding, s, d)
               for n, k, s, d in zip(spatial, self.kernel_size, self.strides,
                                     self.dilation_rate)]
        if self.data_format == "channels_first":
            return TensorShape([dims[0], self.filters] + out)
        return TensorShape([dims[0]] + out + [self.filters])


class Conv1D(_Conv):
    """1-D convolution layer over [batch, width, channels] (`tf.layers.Conv1D`); see
    `_Conv` for the arguments."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, trainable, name, **kwargs)


class Conv2D(_Conv):
    """2-D convolution layer over [batch, height, width, channels] (or channels first)
    (`tf.layers.Conv2D`); see `_Conv` for the arguments."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=_ZEROS,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, trainable, name, **kwargs)


class Conv2DTranspose(Conv2D):
    """Transposed 2-D convolution ("deconvolution") layer (`tf.layers.Conv2DTranspose`).

    The kernel is [kh, kw, filters, in_channels]; each spatial output size is
    `in * stride` ("same") or `in * stride + max(k - stride, 0)` ("valid").
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, (1, 1),
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, trainable, name, **kwargs)

    def _kernel_shape(self, input_dim):
        return self.kernel_size + (self.filters, input_dim)

    def _convolve(self, inputs):
        h_axis, w_axis = (2, 3) if self.data_format == "channels_first" else (1, 2)
        static = inputs.shape.as_list()
        dynamic = array_ops.shape(inputs)
        batch = dynamic[0]
        sizes = []
        for axis, k, s in zip((h_axis, w_axis), self.kernel_size, self.strides):
            n = static[axis] if static[axis] is not None else dynamic[axis]
            sizes.append(utils.deconv_output_length(n, k, self.padding, s))
        if self.data_format == "channels_first":
            output_shape = [batch, self.filters] + sizes
        else:
            output_shape = [batch] + sizes + [self.filters]
        outputs = conv_composite.conv2d_transpose(
            inputs, self.kernel, array_ops.stack(output_shape), strides=list(self.strides),
            padding=self.padding.upper(),
            data_format=utils.convert_data_format(self.data_format, 4))
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        return outputs

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).with_rank(4).as_list()
        h_axis, w_axis = (2, 3) if self.data_format == "channels_first" else (1, 2)
        c_axis = 1 if self.data_format == "channels_first" else 3
        dims[c_axis] = self.filters
        for axis, k, s in zip((h_axis, w_axis), self.kernel_size, self.strides):
            dims[axis] = utils.deconv_output_length(dims[axis], k, self.padding, s)
        return TensorShape(dims)


def _conv_kwargs(activation, use_bias, kernel_initializer, bias_initializer,
                 kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
                 bias_constraint, trainable, name, reuse):
    return dict(activation=activation, use_bias=use_bias,
                kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                bias_constraint=bias_constraint, trainable=trainable, name=name,
                _scope=name, _reuse=reuse)


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
           data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """Functional `Conv1D` (`tf.layers.conv1d`); returns the output tensor."""
    layer = Conv1D(filters, kernel_size, strides=strides, padding=padding,
                   data_format=data_format, dilation_rate=dilation_rate,
                   **_conv_kwargs(activation, use_bias, kernel_initializer, bias_initializer,
                                  kernel_regularizer, bias_regularizer, activity_regularizer,
                                  kernel_constraint, bias_constraint, trainable, name, reuse))
    return layer.apply(inputs)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """Functional `Conv2D` (`tf.layers.conv2d`); returns the output tensor."""
    layer = Conv2D(filters, kernel_size, strides=strides, padding=padding,
                   data_format=data_format, dilation_rate=dilation_rate,
                   **_conv_kwargs(activation, use_bias, kernel_initializer, bias_initializer,
                                  kernel_regularizer, bias_regularizer, activity_regularizer,
                                  kernel_constraint, bias_constraint, trainable, name, reuse))
    return layer.apply(inputs)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """Functional `Conv2DTranspose` (`tf.layers.conv2d_transpose`); returns the output."""
    layer = Conv2DTranspose(filters, kernel_size, strides=strides, padding=padding,
                            data_format=data_format,
                            **_conv_kwargs(activation, use_bias, kernel_initializer,
                                           bias_initializer, kernel_regularizer,
                                           bias_regularizer, activity_regularizer,
                                           kernel_constraint, bias_constraint, trainable,
                                           name, reuse))
    return layer.apply(inputs)


# TF1's aliases.
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution2DTranspose = Deconvolution2D = Conv2DTranspose
convolution1d = conv1d
convolution2d = conv2d
convolution2d_transpose = deconvolution2d = conv2d_transpose
