"""Cross-entropy losses of `tf.nn`: the fused SoftmaxCrossEntropyWithLogits and
SparseSoftmaxCrossEntropyWithLogits ops with their gradients, and the composite
sigmoid and weighted sigmoid cross entropies, built as TensorFlow builds them.
"""
import numpy as np

from trainflow._src.ops.array import cast, create, gather, join, layout, shape, slicing
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.math.shapes import broadcast_dims
from trainflow._src.ops.nn.activation import relu
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.nn import xent_kernels as K
from trainflow._src.ops.nn.math_util import broadcast_mul
from trainflow._src.ops.nn.shape_util import merge_dims
from trainflow._src.ops.array.shape_util import dims_of, merge_dim, with_rank

__all__ = ["log_poisson_loss", "sigmoid_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
           "sparse_softmax_cross_entropy_with_logits",
           "weighted_cross_entropy_with_logits"]

_FLOAT_TYPES = "{half, bfloat16, float, double}"


def _softmax_xent_shape(op):
    # Equal [batch, classes] shapes, or shapes that broadcast to a 2-D one (TF 2.x).
    logits, labels = dims_of(op.inputs[0]), dims_of(op.inputs[1])
    try:
        both = merge_dims(with_rank(logits, 2), labels)
    except ValueError:
        both = broadcast_dims(logits, labels)
        if both is None:
            raise ValueError("Shape must be broadcasted with rank 2, but is rank is "
                             "unknown") from None
        if len(both) != 2:
            raise ValueError(f"Shape must be broadcasted with rank 2, but is rank "
                             f"{len(both)}") from None
    return [TensorShape([both[0]]), TensorShape(both)]


def _sparse_softmax_xent_shape(op):
    logits = with_rank(dims_of(op.inputs[0]), 2)
    labels = with_rank(dims_of(op.inputs[1]), 1)
    batch = merge_dim(logits[0], labels[0])
    return [TensorShape([batch]), TensorShape([batch, logits[1]])]


register_op("SoftmaxCrossEntropyWithLogits", inputs=["features: T", "labels: T"],
            outputs=["loss: T", "backprop: T"], attrs=[f"T: {_FLOAT_TYPES}"],
            shape_fn=_softmax_xent_shape, kernel=K.softmax_xent)
register_op("SparseSoftmaxCrossEntropyWithLogits", inputs=["features: T", "labels: Tlabels"],
            outputs=["loss: T", "backprop: T"],
            attrs=[f"T: {_FLOAT_TYPES}", "Tlabels: {int32, int64} = DT_INT64"],
            shape_fn=_sparse_softmax_xent_shape, kernel=K.sparse_softmax_xent)


# -- gradients ------------------------------------------------------------------------------
def _is_zeros(t):
    """True for a gradient known to be all zeros (the filler for an unused output)."""
    if t is None or t.op.type == "ZerosLike":
        return True
    value = constant_value(t)
    return value is not None and not np.any(value)


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op, grad_loss, grad_grad):
    # d loss / d logits is the backprop output; d loss / d labels is -log_softmax(logits).
    # A gradient reaching the backprop output adds its product with the softmax Jacobian.
    logits = op.inputs[0]
    grad = broadcast_mul(grad_loss, op.outputs[1])
    if not _is_zeros(grad_grad):
        s = apply_op("Softmax", logits=logits).outputs[0]
        dot = reductions.reduce_sum(arith.multiply(grad_grad, s), -1, keepdims=True)
        grad = arith.add(grad, arith.multiply(arith.subtract(grad_grad, dot), s))
    log_probs = apply_op("LogSoftmax", logits=logits).outputs[0]
    return grad, broadcast_mul(grad_loss, arith.negative(log_probs))


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op, grad_loss, grad_grad):
    backprop = cast.prevent_gradient(
        op.outputs[1], message="Currently there is no way to take the second derivative of "
        "sparse_softmax_cross_entropy_with_logits due to the fused implementation's "
        "interaction with tf.gradients()")
    return broadcast_mul(grad_loss, backprop), None


# -- public functions -----------------------------------------------------------------------
def _ensure_xent_args(name, sentinel, labels, logits):
    if sentinel is not None:
        raise ValueError(f"Only call `{name}` with named arguments (labels=..., logits=..., "
                         f"...). Received unnamed argument: {sentinel}")
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided. "
                         f"Received: labels={labels} and logits={logits}")


def _move_axis_to_end(x, axis, rank):
    """Transposes `axis` of `x` (static rank `rank`) to the last position."""
    perm = [i for i in range(rank) if i != axis] + [axis]
    return layout.transpose(x, perm)


def _flatten_outer_dims(x):
    """Reshapes `x` to [-1, last_dim], keeping static sizes where known."""
    rank = shape.rank(x)
    last = slicing.slice(shape.shape(x), [arith.subtract(rank, 1)], [1])
    out = shape.reshape(x, join.concat([[-1], last], 0))
    dims = dims_of(x)
    if dims is not None and all(d is not None for d in dims[:-1]):
        out.set_shape([int(np.prod(dims[:-1], dtype=np.int64)), dims[-1]])
    return out


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """Softmax cross entropy between `logits` and a distribution `labels`; the gradient
    flows into both (`tf.nn.softmax_cross_entropy_with_logits_v2`).

    Args:
      labels: a Tensor of `logits`' shape whose rows along `axis` are distributions.
      logits: a floating Tensor (unscaled log probabilities).
      axis: the class axis (default -1); `dim` is its deprecated spelling.
      name: the name scope (default "softmax_cross_entropy_with_logits").

    Returns:
      the loss, of `logits`' shape without `axis`.
    """
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    axis = -1 if axis is None and dim is None else (axis if axis is not None else dim)
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as name:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        low_precision = logits.dtype.base_dtype in (dtypes.float16, dtypes.bfloat16)
        precise = cast.cast(logits, dtypes.float32) if low_precision else logits
        labels = cast.cast(labels, precise.dtype.base_dtype)
        static_dims = dims_of(logits)
        if axis != -1:
            if static_dims is None:
                raise ValueError("softmax_cross_entropy_with_logits along an axis other than "
                                 "the last needs logits of known rank")
            rank = len(static_dims)
            axis_value = axis % rank
            if axis_value != rank - 1:
                precise = _move_axis_to_end(precise, axis_value, rank)
                labels = _move_axis_to_end(labels, axis_value, rank)
        input_rank = shape.rank(precise)
        input_shape = shape.shape(precise)
        flat_logits = _flatten_outer_dims(precise)
        flat_labels = _flatten_outer_dims(labels)
        cost = apply_op("SoftmaxCrossEntropyWithLogits", features=flat_logits,
                        labels=flat_labels, name=name).outputs[0]
        out_shape = slicing.slice(input_shape, [0], [arith.subtract(input_rank, 1)])
        cost = shape.reshape(cost, out_shape)
        if static_dims is not None:
            kept = list(static_dims)
            del kept[axis]
            cost.set_shape(kept)
        return cast.cast(cost, logits.dtype.base_dtype) if low_precision else cost


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """TF1's softmax cross entropy: as `softmax_cross_entropy_with_logits_v2` but no
    gradient flows into `labels` (they pass through StopGradient).

    Args:
      _sentinel: must be left unset (call with keyword arguments).
      labels, logits: as in the v2 function.
      dim: the class axis (default -1); `axis` is its newer spelling.
      name: the name scope (default "softmax_cross_entropy_with_logits_sg").

    Raises:
      ValueError: for positional arguments or missing labels/logits.
    """
    _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    if axis is not None:
        dim = axis
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as name:
        labels = cast.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim,
                                                name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """Softmax cross entropy with one integer class per example
    (`tf.nn.sparse_softmax_cross_entropy_with_logits`).

    Args:
      _sentinel: must be left unset (call with keyword arguments).
      labels: int32/int64 Tensor of `logits`' shape without the last axis, each in
        [0, num_classes); an out-of-range label is an InvalidArgumentError at run time.
      logits: a floating Tensor [d_0, ..., d_{r-1}, num_classes].
      name: the name scope (default "SparseSoftmaxCrossEntropyWithLogits").

    Returns:
      the loss, of `labels`' shape and `logits`' dtype.

    Raises:
      ValueError: for a scalar `logits` or mismatched static shapes.
    """
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        half = logits.dtype.base_dtype == dtypes.float16
        precise = cast.cast(logits, dtypes.float32) if half else logits
        labels_static = labels.shape
        logits_static = logits.shape
        labels_shape = shape.shape(labels)
        if logits_static.ndims == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
        if logits_static.ndims is not None and labels_static.ndims is not None and \
                labels_static.ndims != logits_static.ndims - 1:
            raise ValueError("`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                             f"labels.shape={labels_static} of rank {labels_static.ndims} and "
                             f"logits.shape={logits_static} of rank {logits_static.ndims}")
        fully_defined = labels_static.is_fully_defined() and \
            logits_static.ndims is not None and logits_static[:-1].is_fully_defined()
        if fully_defined and labels_static.as_list() != logits_static[:-1].as_list():
            raise ValueError("`labels.shape` must equal `logits.shape` except for the last "
                             f"dimension. Received: labels.shape={labels_static} and "
                             f"logits.shape={logits_static}")
        if logits_static.ndims == 2:
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", features=precise,
                            labels=labels, name=name).outputs[0]
            return cast.cast(cost, dtypes.float16) if half else cost
        checks = []
        if not fully_defined:
            checks.append(check_ops.assert_equal(
                labels_shape, shape.shape(logits)[:-1],
                message="labels and logits must have the same shape but the last dimension"))
        with control_dependencies(checks):
            num_classes = shape.shape(logits)[shape.rank(logits) - 1]
            flat_logits = shape.reshape(precise, join.stack([-1, num_classes]))
            flat_labels = shape.reshape(labels, [-1])
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", features=flat_logits,
                            labels=flat_labels, name=name).outputs[0]
            cost = shape.reshape(cost, labels_shape)
            cost.set_shape(labels_static)
            return cast.cast(cost, dtypes.float16) if half else cost


def _check_same_shape(logits, labels):
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError("`logits` and `labels` must have the same shape, received "
                         f"({logits.shape} vs {labels.shape}).")


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Logistic loss per element, computed stably as
    max(x, 0) - x * z + log(1 + exp(-|x|)) (`tf.nn.sigmoid_cross_entropy_with_logits`).

    Args:
      _sentinel: must be left unset (call with keyword arguments).
      labels: targets z in [0, 1], of `logits`' shape and dtype.
      logits: a floating Tensor x.
      name: the op name (default "logistic_loss").

    Raises:
      ValueError: if the shapes of `labels` and `logits` differ.
    """
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        _check_same_shape(logits, labels)
        zeros = create.zeros_like(logits, dtype=logits.dtype.base_dtype)
        positive = arith.greater_equal(logits, zeros)
        relu_logits = gather.where(positive, logits, zeros)
        neg_abs_logits = gather.where(positive, arith.negative(logits), logits)
        linear = arith.subtract(relu_logits, arith.multiply(logits, labels, name="mul"),
                                   name="sub")
        return arith.add(linear, arith.log1p(arith.exp(neg_abs_logits)), name=name)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """Logistic loss with the positive term weighted by `pos_weight`:
    (1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0))
    (`tf.nn.weighted_cross_entropy_with_logits`).

    Args:
      labels: targets z (`targets` is TF1's older spelling).
      logits: a floating Tensor x of `labels`' shape.
      pos_weight: the weight q of positive examples (number or Tensor).
      name: the op name (default "logistic_loss").

    Raises:
      ValueError: if the shapes differ or both `labels` and `targets` are given.
    """
    if labels is not None and targets is not None:
        raise ValueError("Cannot specify both 'labels' and 'targets'.")
    labels = targets if labels is None else labels
    with name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        _check_same_shape(logits, labels)
        dtype = logits.dtype.base_dtype
        one = np.asarray(1, dtype=dtype.as_numpy_dtype)
        if isinstance(pos_weight, (int, float, np.number)):
            weight_minus_one = np.asarray(pos_weight - 1, dtype=dtype.as_numpy_dtype)
        else:
            weight_minus_one = arith.subtract(pos_weight, one)
        log_weight = arith.add(one, arith.multiply(weight_minus_one, labels, name="mul"),
                                  name="add")
        linear = arith.multiply(arith.subtract(one, labels, name="sub"), logits,
                                   name="mul")
        softplus_neg = arith.add(
            arith.log1p(arith.exp(arith.negative(arith.abs(logits)))),
            relu(arith.negative(logits)), name="add")
        return arith.add(linear, arith.multiply(log_weight, softplus_neg, name="mul"),
                            name=name)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """The negative log likelihood of `targets` under a Poisson distribution with log
    rate `log_input`: exp(log_input) - log_input * targets (`tf.nn.log_poisson_loss`).

    Args:
      targets: a Tensor of counts.
      log_input: a Tensor of `targets`' shape, the log of the predicted rate.
      compute_full_loss: add Stirling's approximation of log(targets!) (for targets > 1).
      name: the name scope (default "log_poisson_loss").

    Raises:
      ValueError: if the shapes differ.
    """
    with name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        if not targets.shape.is_compatible_with(log_input.shape):
            raise ValueError("`log_input` and `targets` must have the same shape, received "
                             f"({log_input.shape} vs {targets.shape}).")
        result = arith.subtract(arith.exp(log_input),
                                   arith.multiply(log_input, targets, name="mul"), name="sub")
        if not compute_full_loss:
            return result
        dtype = targets.dtype.base_dtype
        half = convert_to_tensor(0.5, dtype=dtype)
        two_pi = convert_to_tensor(2 * np.pi, dtype=dtype)
        stirling = arith.add(
            arith.subtract(arith.multiply(targets, arith.log(targets), name="mul"),
                              targets, name="sub"),
            arith.multiply(half, arith.log(arith.multiply(two_pi, targets,
                                                                    name="mul")), name="mul"),
            name="add")
        zeros = create.zeros_like(targets)
        ones = create.ones_like(targets)
        small = arith.logical_and(arith.greater_equal(targets, zeros),
                                     arith.less_equal(targets, ones))
        return arith.add(result, gather.where(small, zeros, stirling), name="add")
