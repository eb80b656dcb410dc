"""`tf.layers.BatchNormalization` and `tf.layers.batch_normalization`.

Variables `<scope>/gamma`, `beta` (trainable) and `moving_mean`, `moving_variance`
(global, not trainable). With `training` true the batch statistics normalise and the
update ops `<scope>/AssignMovingAvg` and `AssignMovingAvg_1` (AssignSub of
`(moving - batch) * (1 - momentum)`) join the layer's updates and UPDATE_OPS; with
`training` false the moving statistics normalise. A bool tensor `training` builds
both paths under `cond`s. 4-D inputs normalised over the channel axis use one
`FusedBatchNormV3` op (whose training variance, and so the moving variance, is the
unbiased one); other inputs use `moments` and `batchnorm/...` ops.
"""
from trainflow._src.framework import constant_op, dtypes
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.layers import utils
from trainflow._src.layers.base import InputSpec, Layer
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn import nn_ops, norm
from trainflow._src.ops.nn import batch_norm as fbn
from trainflow._src.ops.state import init_ops, state_ops

__all__ = ["BatchNormalization", "BatchNorm", "batch_normalization"]

_RENORM_KEYS = ("rmax", "rmin", "dmax")


_ZEROS = init_ops.zeros_initializer()
_ONES = init_ops.ones_initializer()


class BatchNormalization(Layer):
    """Batch normalization layer (`tf.layers.BatchNormalization`, Ioffe & Szegedy 2015).

    Args:
      axis: the feature axis or axes (default -1).
      momentum: the moving averages' decay.
      epsilon: added to the variance.
      center, scale: learn beta / gamma.
      beta_initializer, gamma_initializer, moving_mean_initializer,
      moving_variance_initializer: defaults zeros, ones, zeros, ones (None: the
        scope's or get_variable's default).
      beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: as Dense.
      renorm: batch renormalization (Ioffe 2017): extra `renorm_mean`/`renorm_stddev`
        moving statistics correct the batch statistics (not with fused).
      renorm_clipping: {"rmax", "rmin", "dmax"} clip values for the corrections.
      renorm_momentum: decay of the renorm moving statistics.
      fused: None or True use the fused kernel where it applies (4-D input, axis 1 or
        3, no renorm); False never does.
      trainable, name: as Layer.

    `call(inputs, training=False)`: training is a Python bool or a bool tensor.

    Raises:
      ValueError: for bad renorm_clipping keys.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=_ZEROS, gamma_initializer=_ONES,
                 moving_mean_initializer=_ZEROS, moving_variance_initializer=_ONES,
                 beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError("Expected an int or a list/tuple of ints for the argument "
                            f"'axis', but received: {axis!r}")
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = utils.get_initializer(beta_initializer)
        self.gamma_initializer = utils.get_initializer(gamma_initializer)
        self.moving_mean_initializer = utils.get_initializer(moving_mean_initializer)
        self.moving_variance_initializer = utils.get_initializer(moving_variance_initializer)
        self.beta_regularizer = utils.get_regularizer(beta_regularizer)
        self.gamma_regularizer = utils.get_regularizer(gamma_regularizer)
        self.beta_constraint = utils.get_constraint(beta_constraint)
        self.gamma_constraint = utils.get_constraint(gamma_constraint)
        self.renorm = renorm
        # As in TF1, fused=None or True means "fused where it applies" (decided in build).
        self.fused = True if fused is None else fused
        if renorm:
            renorm_clipping = dict(renorm_clipping or {})
            unknown = set(renorm_clipping) - set(_RENORM_KEYS)
            if unknown:
                raise ValueError("Received invalid keys for `renorm_clipping` argument: "
                                 f"{renorm_clipping}. Supported values: {list(_RENORM_KEYS)}.")
            self.renorm_clipping = renorm_clipping
            self.renorm_momentum = renorm_momentum
        self.supports_masking = True
        self.gamma = self.beta = None
        self.moving_mean = self.moving_variance = None

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        rank = input_shape.ndims
        if rank is None:
            raise ValueError(f"Input has undefined rank: {input_shape}")
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if not -rank <= a < rank:
                raise ValueError(f"Invalid axis: {a}")
        axes = sorted({a % rank for a in axes})
        self.axis = axes
        if self.fused:
            self.fused = rank == 4 and axes in ([1], [3]) and not self.renorm
        if self.fused:
            self._data_format = "NCHW" if axes == [1] else "NHWC"
        dims = input_shape.as_list()
        axis_to_dim = {a: dims[a] for a in axes}
        for _axis, d in axis_to_dim.items():
            if d is None:
                raise ValueError(f"Input has undefined `axis` dimension. Input shape: "
                                 f"{input_shape}")
        self.input_spec = InputSpec(ndim=rank, axes=axis_to_dim)
        if len(axes) == 1:
            param_shape = (axis_to_dim[axes[0]],)
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(rank)]
        self._param_shape = param_shape
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        if dtype in (dtypes.float16, dtypes.bfloat16):
            dtype = dtypes.float32
        self._param_dtype = dtype
        if self.scale:
            self.gamma = self.add_weight("gamma", param_shape, dtype=dtype,
                                         initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint, trainable=True)
        if self.center:
            self.beta = self.add_weight("beta", param_shape, dtype=dtype,
                                        initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint, trainable=True)
        # Moving statistics are never partitioned, whatever the scope says.
        partitioner = self._scope.partitioner if self._scope is not None else None
        if self._scope is not None:
            self._scope.set_partitioner(None)
        try:
            self.moving_mean = self.add_weight("moving_mean", param_shape, dtype=dtype,
                                               initializer=self.moving_mean_initializer,
                                               trainable=False)
            self.moving_variance = self.add_weight(
                "moving_variance", param_shape, dtype=dtype,
                initializer=self.moving_variance_initializer, trainable=False)
            if self.renorm:
                self._build_renorm(param_shape, dtype)
        finally:
            if self._scope is not None:
                self._scope.set_partitioner(partitioner)
        self.built = True

    def _build_renorm(self, param_shape, dtype):

        def stddev_init(*args, **kwargs):
            variance_init = self.moving_variance_initializer or _ONES
            return math_ops.sqrt(variance_init(*args, **kwargs))
        self.moving_stddev = self.add_weight("moving_stddev", param_shape, dtype=dtype,
                                             initializer=stddev_init, trainable=False)
        self.renorm_mean = self.add_weight("renorm_mean", param_shape, dtype=dtype,
                                           initializer=_ZEROS, trainable=False)
        self.renorm_stddev = self.add_weight("renorm_stddev", param_shape, dtype=dtype,
                                             initializer=stddev_init, trainable=False)

    # -- updates ---------------------------------------------------------------------------
    def _assign_moving_average(self, variable, value, momentum):
        """AssignSub(variable, (variable - value) * (1 - momentum)) named AssignMovingAvg."""
        with name_scope(None, "AssignMovingAvg") as scope:
            decay = convert_to_tensor(1.0 - momentum, name="decay")
            if decay.dtype.base_dtype != variable.dtype.base_dtype:
                decay = math_ops.cast(decay, variable.dtype.base_dtype)
            delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)

    def _assign_new_value(self, variable, value):
        with name_scope(None, "AssignNewValue") as scope:
            return state_ops.assign(variable, value, name=scope)

    # -- forward -----------------------------------------------------------------------------
    def call(self, inputs, training=False):
        if self.fused:
            return self._fused_call(inputs, training)
        return self._plain_call(inputs, training)

    def _fused_call(self, inputs, training):
        gamma = self.gamma if self.scale else constant_op.constant(
            1.0, dtype=self._param_dtype, shape=self._param_shape)
        beta = self.beta if self.center else constant_op.constant(
            0.0, dtype=self._param_dtype, shape=self._param_shape)

        def fused(is_training):
            return lambda: fbn.fused_batch_norm(
                inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance,
                epsilon=self.epsilon, is_training=is_training, data_format=self._data_format)
        output, mean, variance = utils.smart_cond(training, fused(True), fused(False))
        known = utils.static_bool(training)
        if known is None or known:
            if known is None:
                momentum = utils.smart_cond(training, lambda: convert_to_tensor(self.momentum),
                                            lambda: convert_to_tensor(1.0))
            else:
                momentum = convert_to_tensor(self.momentum)
            self.add_update(
                lambda: self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(
                lambda: self._assign_moving_average(self.moving_variance, variance, momentum))
        return output

    def _broadcast_fn(self, ndims, reduction_axes, input_shape):
        shape = [1] * ndims
        shape[self.axis[0]] = input_shape.as_list()[self.axis[0]]

        def broadcast(v):
            if v is not None and v.shape.ndims != ndims and \
                    reduction_axes != list(range(ndims - 1)):
                return array_ops.reshape(v, shape)
            return v
        return broadcast

    def _plain_call(self, inputs, training):
        input_dtype = inputs.dtype.base_dtype
        if input_dtype in (dtypes.float16, dtypes.bfloat16):
            inputs = math_ops.cast(inputs, dtypes.float32)
        input_shape = inputs.shape
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast = self._broadcast_fn(ndims, reduction_axes, input_shape)
        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        known = utils.static_bool(training)
        if known is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            keep_dims = len(self.axis) > 1
            mean, variance = norm.moments(math_ops.cast(inputs, self._param_dtype),
                                                 reduction_axes, keep_dims=keep_dims)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = utils.smart_cond(training, lambda: mean,
                                    lambda: convert_to_tensor(moving_mean))
            variance = utils.smart_cond(training, lambda: variance,
                                        lambda: convert_to_tensor(moving_variance))
            new_mean, new_variance = mean, variance
            if self.renorm:
                r, d, new_mean, new_variance = self._renorm_correction_and_moments(
                    new_mean, new_variance, training)
                r = broadcast(array_ops.stop_gradient(r, name="renorm_r"))
                d = broadcast(array_ops.stop_gradient(d, name="renorm_d"))
                scale, offset = _compose(r, d, scale, offset)

            def mean_update():
                return utils.smart_cond(
                    training,
                    lambda: self._assign_moving_average(self.moving_mean, new_mean,
                                                        self.momentum),
                    lambda: self.moving_mean)

            def variance_update():
                if self.renorm:
                    def true_branch():
                        stddev = self._assign_moving_average(
                            self.moving_stddev, math_ops.sqrt(new_variance + self.epsilon),
                            self.momentum)
                        return self._assign_new_value(
                            self.moving_variance, nn_ops.relu(stddev * stddev - self.epsilon))
                else:
                    def true_branch():
                        return self._assign_moving_average(self.moving_variance, new_variance,
                                                           self.momentum)
                return utils.smart_cond(training, true_branch, lambda: self.moving_variance)
            self.add_update(mean_update)
            self.add_update(variance_update)
        mean = math_ops.cast(mean, inputs.dtype.base_dtype)
        variance = math_ops.cast(variance, inputs.dtype.base_dtype)
        outputs = norm.batch_normalization(inputs, broadcast(mean), broadcast(variance),
                                                  offset, scale, self.epsilon)
        if input_dtype in (dtypes.float16, dtypes.bfloat16):
            outputs = math_ops.cast(outputs, input_dtype)
        outputs.set_shape(input_shape)
        return outputs

    def _renorm_correction_and_moments(self, mean, variance, training):
        """The renorm corrections r, d and the (updated-after) mean and variance."""
        stddev = math_ops.sqrt(variance + self.epsilon)
        renorm_mean = self.renorm_mean
        renorm_stddev = math_ops.maximum(self.renorm_stddev, self.epsilon ** 0.5)
        r = stddev / renorm_stddev
        d = (mean - renorm_mean) / renorm_stddev
        with control_dependencies([r, d]):
            mean = array_ops.identity(mean)
            stddev = array_ops.identity(stddev)
        clip = self.renorm_clipping
        if clip.get("rmin") is not None:
            r = math_ops.maximum(r, clip["rmin"])
        if clip.get("rmax") is not None:
            r = math_ops.minimum(r, clip["rmax"])
        if clip.get("dmax") is not None:
            d = math_ops.maximum(d, -clip["dmax"])
            d = math_ops.minimum(d, clip["dmax"])
        r = utils.smart_cond(training, lambda: r, lambda: array_ops.ones_like(r))
        d = utils.smart_cond(training, lambda: d, lambda: array_ops.zeros_like(d))

        def update(var, value):
            value = array_ops.identity(value)
            return utils.smart_cond(
                training,
                lambda: self._assign_moving_average(var, value, self.renorm_momentum),
                lambda: array_ops.identity(var))
        update_mean = update(self.renorm_mean, mean)
        update_stddev = update(self.renorm_stddev, stddev)
        with control_dependencies([update_mean, update_stddev]):
            return r, d, array_ops.identity(mean), array_ops.identity(variance)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


def _compose(scale, offset, then_scale, then_offset):
    """(scale, offset) of applying (scale, offset) then (then_scale, then_offset)."""
    if then_scale is not None:
        scale = scale * then_scale
        offset = offset * then_scale
    if then_offset is not None:
        offset = offset + then_offset
    return scale, offset


BatchNorm = BatchNormalization


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=_ZEROS, gamma_initializer=_ONES,
                        moving_mean_initializer=_ZEROS, moving_variance_initializer=_ONES,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None):
    """Functional `BatchNormalization` (`tf.layers.batch_normalization`).

    With `training` true, run the update ops with the train step, e.g.
    `with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)): ...`.

    Returns:
      the normalised tensor.
    """
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
        renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
        trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs, training=training)
