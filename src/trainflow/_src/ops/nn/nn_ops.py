"""`tf.nn` outside convolution and pooling: this module holds dropout, top_k,
in_top_k and zero_fraction (with the TopK/InTopK ops) and re-exports the functions
of the other `nn_*` modules, so `nn_ops.__all__` is the non-convolution part of the
`tf.nn` namespace.
"""
import collections
import numbers

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.nn import topk_kernels as K
# The concern modules under private names (softmax is also a function star-imported below).
from trainflow._src.ops.nn import (
    activation as _activation, batch_norm as _batch_norm, embedding as _embedding, norm as _norm,
    sampled_loss as _sampled_loss, sampling as _sampling, softmax as _softmax, xent as _xent)
from trainflow._src.ops.nn.activation import *  # noqa: F401,F403
from trainflow._src.ops.nn.embedding import *  # noqa: F401,F403
from trainflow._src.ops.nn.batch_norm import *  # noqa: F401,F403
from trainflow._src.ops.nn.norm import *  # noqa: F401,F403
from trainflow._src.ops.nn.sampled_loss import *  # noqa: F401,F403
from trainflow._src.ops.nn.sampling import *  # noqa: F401,F403
from trainflow._src.ops.array.shape_util import dims_of, merge_dim, with_rank, with_rank_at_least
from trainflow._src.ops.nn.softmax import *  # noqa: F401,F403
from trainflow._src.ops.nn.xent import *  # noqa: F401,F403
from trainflow._src.ops.array import cast, create, identity, shape
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.random import random_ops

__all__ = sorted(["dropout", "in_top_k", "top_k", "zero_fraction"] +
                 _activation.__all__ + _embedding.__all__ + _batch_norm.__all__ +
                 _norm.__all__ + _sampled_loss.__all__ + _sampling.__all__ + _softmax.__all__ +
                 _xent.__all__)

_TOPK_TYPES = ("{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
               "uint32, uint64}")


def _top_k_shape(op, k):
    dims = with_rank_at_least(dims_of(op.inputs[0]), 1)
    if k is not None and k < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but "
                         f"is {k}")
    if dims is None:
        return [None, None]
    last = dims[-1]
    if k is not None and last is not None and last < k:
        raise ValueError(f"input must have last dimension >= k = {k} but is {last}")
    out = TensorShape(list(dims[:-1]) + [k])
    return [out, out]


def _top_k_v2_shape(op):
    with_rank(dims_of(op.inputs[1]), 0)
    k = constant_value(op.inputs[1])
    return _top_k_shape(op, None if k is None else int(k))


def _in_top_k_shape(op):
    preds = with_rank(dims_of(op.inputs[0]), 2)
    targets = with_rank(dims_of(op.inputs[1]), 1)
    if len(op.inputs) > 2:
        with_rank(dims_of(op.inputs[2]), 0)
    return [TensorShape([merge_dim(preds[0], targets[0])])]


register_op("TopKV2", inputs=["input: T", "k: Tk"], outputs=["values: T", "indices: index_type"],
            attrs=["sorted: bool = true", f"T: {_TOPK_TYPES}",
                   "Tk: {int16, int32, int64} = DT_INT32",
                   "index_type: {int16, int32, int64} = DT_INT32"],
            shape_fn=_top_k_v2_shape, kernel=K.top_k_v2)
register_op("TopK", inputs=["input: T"], outputs=["values: T", "indices: int32"],
            attrs=["k: int >= 0", "sorted: bool = true", f"T: {_TOPK_TYPES}"],
            shape_fn=lambda op: _top_k_shape(op, op._attrs["k"]), kernel=K.top_k)
register_op("InTopKV2", inputs=["predictions: float", "targets: T", "k: T"],
            outputs=["precision: bool"], attrs=["T: {int32, int64} = DT_INT32"],
            shape_fn=_in_top_k_shape, kernel=K.in_top_k_v2)
register_op("InTopK", inputs=["predictions: float", "targets: T"],
            outputs=["precision: bool"], attrs=["k: int", "T: {int32, int64} = DT_INT32"],
            shape_fn=_in_top_k_shape, kernel=K.in_top_k)
NotDifferentiable("InTopK")
NotDifferentiable("InTopKV2")


def _top_k_input_grad(op, grad):
    # Each value came from one input position: spread the values' gradient back there
    # (one-hot rows of the indices, summed over the k picks).
    x = op.inputs[0]
    depth = shape.shape(x)[-1]
    picks = create.one_hot(op.outputs[1], depth, dtype=grad.dtype.base_dtype)
    spread = arith.multiply(shape.expand_dims(grad, -1), picks)
    return reductions.reduce_sum(spread, -2)


@RegisterGradient("TopKV2")
def _top_k_v2_grad(op, grad, _):
    return _top_k_input_grad(op, grad), None


@RegisterGradient("TopK")
def _top_k_grad(op, grad, _):
    return _top_k_input_grad(op, grad)


TopKV2Result = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TF's arg names
    """The k largest entries of the last axis and their indices (`tf.nn.top_k`).

    Args:
      input: a real Tensor of rank >= 1.
      k: an int or 0-D int32 Tensor.
      sorted: return the values in descending order (ties: lower index first).
      name: the op name (default "TopKV2").

    Returns:
      a TopKV2(values, indices) namedtuple; indices are int32.

    Raises:
      ValueError: if k is statically negative or larger than the last dimension.
    """
    op = apply_op("TopKV2", input=input, k=k, sorted=bool(sorted), name=name)
    return TopKV2Result(op.outputs[0], op.outputs[1])


def in_top_k(predictions, targets, k, name=None):
    """Whether each target is among the top `k` predictions of its row
    (`tf.nn.in_top_k`, op `InTopKV2`).

    Args:
      predictions: a float32 Tensor [batch, classes].
      targets: an int32/int64 Tensor [batch] of class ids.
      k: an int or scalar Tensor of targets' dtype.
      name: the name scope (default "in_top_k").

    Returns:
      a bool Tensor [batch]; False for out-of-range targets or rows with non-finite values.
    """
    with name_scope(name, "in_top_k"):
        return apply_op("InTopKV2", predictions=predictions, targets=targets, k=k,
                        name=name).outputs[0]


def _noise_shape(x, noise_shape):
    if noise_shape is None:
        return shape.shape(x)
    try:
        requested = as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    x_dims = dims_of(x)
    if x_dims is not None and requested._dims is not None and \
            len(x_dims) == len(requested._dims):
        return TensorShape([x_d if n_d is None and x_d is not None else n_d
                            for x_d, n_d in zip(x_dims, requested._dims)])
    return noise_shape


def _dropout(x, rate, noise_shape, seed, name):
    with name_scope(name, "dropout", [x]) as name:
        is_number = isinstance(rate, numbers.Real) and not isinstance(rate, bool)
        if is_number and not 0 <= rate < 1:
            raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        dtype = x.dtype.base_dtype
        if not dtype.is_floating:
            raise ValueError("`x.dtype` must be a floating point tensor as `x` will be scaled. "
                             f"Received: x_dtype={dtype!r}")
        if is_number and rate == 0:
            return x
        if is_number:
            scale = convert_to_tensor(1 / (1 - rate), dtype=dtype)
            scaled = apply_op("Mul", x=x, y=scale).outputs[0]
        elif isinstance(rate, Tensor):
            rate.shape.assert_has_rank(0)
            if rate.dtype.base_dtype != dtype:
                rate = cast.cast(rate, dtype, name="rate")
            one = convert_to_tensor(1, dtype=dtype)
            scaled = apply_op("RealDiv", x=x, y=apply_op("Sub", x=one, y=rate).outputs[0]
                              ).outputs[0]
        else:
            raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
        noise = _noise_shape(x, noise_shape)
        random = random_ops.random_uniform(noise, seed=seed, dtype=dtype)
        keep = arith.greater_equal(random, rate)
        zero = convert_to_tensor(0, dtype=dtype)
        out = apply_op("SelectV2", condition=keep, t=scaled, e=zero).outputs[0]
        out.set_shape(x.shape)
        return out


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes elements of `x` with probability `rate` (= 1 - keep_prob) and scales the
    others by 1 / keep_prob (`tf.nn.dropout`, TF1 signature).

    Args:
      x: a floating Tensor.
      keep_prob: probability of keeping each element (deprecated spelling of 1 - rate);
        a Python 1.0 returns `x` itself.
      noise_shape: shape of the random keep/drop mask, broadcast against `x`
        (e.g. [batch, 1] drops whole rows); default `x`'s shape.
      seed: op-level random seed.
      name: the name scope (default "dropout").
      rate: probability of dropping each element.

    Raises:
      ValueError: for both or neither of keep_prob/rate, a rate outside [0, 1), or a
        non-floating `x`.
    """
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
    if keep_prob is not None:
        try:
            rate = 1. - keep_prob
        except TypeError:
            raise ValueError("`keep_prob` must be a floating point number or Tensor. Received: "
                             f"keep_prob={keep_prob}") from None
    if rate is None:
        raise ValueError(f"`rate` must be provided. Received: rate={rate}")
    return _dropout(x, rate, noise_shape, seed, name)


def zero_fraction(value, name=None):
    """The fraction of zeros in `value`, a float32 scalar (`tf.nn.zero_fraction`).

    Args:
      value: a numeric Tensor.
      name: the name scope (default "zero_fraction").
    """
    with name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        size = shape.size(value, out_type=dtypes.int64)
        nonzero = reductions.count_nonzero(value, dtype=dtypes.int64)
        with name_scope(None, "counts_to_fraction"):
            zeros = arith.subtract(size, nonzero)
            fraction = arith.truediv(cast.cast(zeros, dtypes.float32),
                                        cast.cast(size, dtypes.float32))
        return identity.identity(fraction, name="fraction")
