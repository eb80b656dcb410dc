"""Matching weights and labels to values, shared by `tf.losses` and `tf.metrics`.

`assert_broadcastable` accepts weights that are a scalar or have the values' rank with
each dimension 1 or equal to the values' (checked statically when the shapes are
known, else by an Assert op); `broadcast_weights` multiplies them out;
`remove_squeezable_dimensions` drops a trailing size-1 axis that makes two ranks differ.
"""
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops, control_flow_ops
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops

__all__ = ["assert_broadcastable", "broadcast_weights", "remove_squeezable_dimensions"]

_PREFIX = "weights can not be broadcast to values."


def _dims_str(dims):
    return "[" + " ".join(str(int(d)) for d in dims) + "]"


def _with_shape_and_rank(x, scope_name):
    """(x as a tensor, its Shape, its Rank), built in a `scope_name` name scope."""
    with name_scope(None, scope_name, [x]) as scope:
        x = convert_to_tensor(x, name=scope)
        return x, array_ops.shape(x, name="shape"), array_ops.rank(x, name="rank")


def assert_broadcastable(weights, values):
    """An op checking that `weights` broadcast to `values` (a NoOp when known statically).

    Raises:
      ValueError: "weights can not be broadcast to values. ..." when the static shapes
        show the mismatch.
    """
    with name_scope(None, "assert_broadcastable", [weights, values]) as scope:
        weights, weights_shape, weights_rank = _with_shape_and_rank(weights, "weights")
        weights_rank_static = constant_value(weights_rank)
        values, values_shape, values_rank = _with_shape_and_rank(values, "values")
        values_rank_static = constant_value(values_rank)
        if weights_rank_static is not None and values_rank_static is not None:
            if int(weights_rank_static) == 0:
                return control_flow_ops.no_op(name="static_scalar_check_success")
            if int(weights_rank_static) != int(values_rank_static):
                raise ValueError(
                    f"{_PREFIX} values.rank={int(values_rank_static)}. "
                    f"weights.rank={int(weights_rank_static)}. values.shape={values.shape}. "
                    f"weights.shape={weights.shape}. Received weights={weights}, "
                    f"values={values}")
            w_dims = constant_value(weights_shape)
            v_dims = constant_value(values_shape)
            if w_dims is not None and v_dims is not None:
                for i, (w, v) in enumerate(zip(w_dims, v_dims)):
                    if w not in (1, v):
                        raise ValueError(
                            f"{_PREFIX} Mismatch at dim {i}. values.shape={_dims_str(v_dims)}, "
                            f"weights.shape={_dims_str(w_dims)}. Received weights={weights}, "
                            f"values={values}")
                return control_flow_ops.no_op(name="static_dims_check_success")
        is_scalar = math_ops.equal(0, weights_rank, name="is_scalar")

        def same_rank_dims_ok():
            ok = math_ops.logical_or(math_ops.equal(weights_shape, 1),
                                     math_ops.equal(weights_shape, values_shape))
            return math_ops.reduce_all(ok)

        def nonscalar_ok():
            same_rank = math_ops.equal(values_rank, weights_rank, name="is_same_rank")
            return cond(same_rank, same_rank_dims_ok, lambda: same_rank,
                        name="has_valid_nonscalar_shape")
        is_valid = cond(is_scalar, lambda: is_scalar, nonscalar_ok, name="is_valid_shape")
        data = [_PREFIX, "weights.shape=", weights.name, weights_shape, "values.shape=",
                values.name, values_shape, "is_scalar=", is_scalar]
        return check_ops.Assert(is_valid, data, name=scope)


def broadcast_weights(weights, values):
    """`weights` multiplied out to the shape of `values` (as is when the static shapes
    already agree), after `assert_broadcastable`.

    Raises:
      ValueError: as `assert_broadcastable`.
    """
    with name_scope(None, "broadcast_weights", [weights, values]) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if weights.shape.is_fully_defined() and values.shape.is_fully_defined() and \
                weights.shape.is_compatible_with(values.shape):
            return weights
        with control_dependencies([assert_broadcastable(weights, values)]):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """Squeezes the last axis of labels or predictions when their rank difference is
    `expected_rank_diff` -/+ 1 and that axis has size 1 (a cond when ranks are unknown).

    Returns:
      (labels, predictions).
    """
    with name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        p_shape, l_shape = predictions.shape, labels.shape
        p_rank, l_rank = p_shape.ndims, l_shape.ndims
        if p_rank is not None and l_rank is not None:
            diff = p_rank - l_rank
            if diff == expected_rank_diff + 1 and p_shape.dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif diff == expected_rank_diff - 1 and l_shape.dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if p_rank is None or p_shape.dims[-1].is_compatible_with(1):
            p = predictions
            predictions = cond(math_ops.equal(expected_rank_diff + 1, rank_diff),
                               lambda: array_ops.squeeze(p, [-1]), lambda: p)
        if l_rank is None or l_shape.dims[-1].is_compatible_with(1):
            lab = labels
            labels = cond(math_ops.equal(expected_rank_diff - 1, rank_diff),
                          lambda: array_ops.squeeze(lab, [-1]), lambda: lab)
        return labels, predictions
