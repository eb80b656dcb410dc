"""`tf.sparse.bincount`: counts (or summed weights) of non-negative integers as a
SparseTensor, over all values (axis 0) or per row (axis -1), by DenseCountSparseOutput or
SparseCountSparseOutput. TensorFlow registers no gradient for either op."""
import numpy as np

from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.shape import reshape
from trainflow._src.ops.array.shape_util import (
    dims_of, invalid_argument, merge_dims, shape_of, with_rank)
from trainflow._src.ops.control_flow.check_ops import assert_equal

__all__ = ["sparse_bincount"]

_ATTRS = ["T: {int32, int64}", "minlength: int >= -1 = -1", "maxlength: int >= -1 = -1",
          "binary_output: bool", "output_type: {int32, int64, float32, float64}"]
_OUTPUTS = ["output_indices: int64", "output_values: output_type",
            "output_dense_shape: int64"]


def _count(batches, values, weights, num_batches, is_1d, *, minlength, maxlength,
           binary_output, output_type):
    out_dtype = np.dtype(output_type.as_numpy_dtype)
    use_weights = weights.size > 0
    counts = [{} for _ in range(num_batches)]
    max_value = 0
    for i, (b, v) in enumerate(zip(batches.tolist(), values.tolist())):
        if b >= num_batches:
            raise invalid_argument("Indices out of bounds")
        if v < 0:
            raise invalid_argument("Input values must all be non-negative")
        if maxlength >= 0 and v >= maxlength:
            continue
        if binary_output:
            counts[b][v] = 1
        else:
            counts[b][v] = counts[b].get(v, 0) + (weights[i] if use_weights else 1)
        max_value = max(max_value, v)
    size = maxlength if maxlength > 0 else max(max_value + 1, minlength)
    rows, vals = [], []
    for b, per_batch in enumerate(counts):
        for v in sorted(per_batch):
            rows.append([v] if is_1d else [b, v])
            vals.append(per_batch[v])
    indices = np.array(rows, np.int64).reshape(-1, 1 if is_1d else 2)
    dense_shape = np.array([size] if is_1d else [num_batches, size], np.int64)
    return indices, np.array(vals, out_dtype).reshape(-1), dense_shape


def _dense_kernel(values, weights, *, T, minlength, maxlength, binary_output,  # noqa: N803
                  output_type):
    attrs = dict(minlength=minlength, maxlength=maxlength, binary_output=binary_output,
                 output_type=output_type)
    values, weights = np.asarray(values), np.asarray(weights)
    if values.ndim not in (1, 2):
        raise invalid_argument(f"Input must be a 1 or 2-dimensional tensor. Got: "
                               f"{list(values.shape)}")
    if weights.size and weights.shape != values.shape:
        raise invalid_argument(f"Weights and values must have the same shape. Weight shape: "
                               f"{list(weights.shape)}; values shape: {list(values.shape)}")
    is_1d = values.ndim == 1
    num_batches = 1 if is_1d else values.shape[0]
    batches = np.zeros(values.size, np.int64) if is_1d else \
        np.repeat(np.arange(values.shape[0]), values.shape[1])
    return _count(batches, values.reshape(-1), weights.reshape(-1), num_batches, is_1d,
                  **attrs)


def _sparse_kernel(indices, values, dense_shape, weights, *, T, minlength,  # noqa: N803
                   maxlength, binary_output, output_type):
    attrs = dict(minlength=minlength, maxlength=maxlength, binary_output=binary_output,
                 output_type=output_type)
    indices, values = np.asarray(indices, np.int64), np.asarray(values)
    dense_shape, weights = np.asarray(dense_shape, np.int64), np.asarray(weights)
    if weights.size and weights.shape != values.shape:
        raise invalid_argument(f"Weights and values must have the same shape. Weight shape: "
                               f"{list(weights.shape)}; values shape: {list(values.shape)}")
    if indices.ndim != 2 or indices.shape[0] != values.shape[0]:
        raise invalid_argument(f"Number of values must match first dimension of indices. Got "
                               f"{values.shape[0]} values, indices shape: "
                               f"{list(indices.shape)}")
    is_1d = dense_shape.size == 1
    num_batches = 1 if is_1d else int(dense_shape[0])
    batches = np.zeros(values.size, np.int64) if is_1d else indices[:, 0]
    return _count(batches, values, weights.reshape(-1), num_batches, is_1d, **attrs)


def _outputs_shape(rank):
    return [shape_of([None, rank]), shape_of([None]), shape_of([rank])]


def _dense_shape(op):
    values, weights = dims_of(op.inputs[0]), dims_of(op.inputs[1])
    no_weights = weights is not None and None not in weights and int(np.prod(weights)) == 0
    merged = values if no_weights else merge_dims(weights, values)
    return _outputs_shape(None if merged is None else len(merged))


def _sparse_shape(op):
    indices = with_rank(dims_of(op.inputs[0]), 2)
    with_rank(dims_of(op.inputs[1]), 1)
    with_rank(dims_of(op.inputs[2]), 1)
    return _outputs_shape(indices[1])


register_op("DenseCountSparseOutput", inputs=["values: T", "weights: output_type"],
            outputs=_OUTPUTS, attrs=_ATTRS, shape_fn=_dense_shape, kernel=_dense_kernel)
register_op("SparseCountSparseOutput",
            inputs=["indices: int64", "values: T", "dense_shape: int64",
                    "weights: output_type"],
            outputs=_OUTPUTS, attrs=_ATTRS, shape_fn=_sparse_shape, kernel=_sparse_kernel)


def _sparse_weights(values, weights):
    if weights is None:
        return constant([], dtype=values.values.dtype)
    if not isinstance(weights, SparseTensor):
        raise ValueError(f"Argument `weights` must be a SparseTensor if `values` is a "
                         f"SparseTensor. Received weights={weights} of type: "
                         f"{type(weights).__name__}")
    checks = []
    if weights.dense_shape is not values.dense_shape:
        checks.append(assert_equal(weights.dense_shape, values.dense_shape,
                                   message="'weights' and 'values' must have the same dense "
                                           "shape."))
    if weights.indices is not values.indices:
        checks.append(assert_equal(weights.indices, values.indices,
                                   message="'weights' and 'values' must have the same "
                                           "indices."))
    if not checks:
        return weights.values
    with control_dependencies(checks):
        return identity(weights.values)


def _dense_weights(values, weights):
    if weights is None:
        return constant([], dtype=values.dtype)
    if not isinstance(weights, Tensor):
        raise ValueError(f"Argument `weights` must be a tf.Tensor if `values` is a tf.Tensor. "
                         f"Received weights={weights} of type: {type(weights).__name__}")
    return weights


def sparse_bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
                    binary_output=False, name=None):
    """How often each non-negative integer occurs in `values` (a tensor or SparseTensor),
    or the sum of its `weights`, or 1 with `binary_output`: a SparseTensor over the whole
    input (`axis=0`) or one row per batch row (`axis=-1`). `maxlength` drops larger
    values; `minlength` pads the dense shape.

    Raises:
      ValueError: for weights with `binary_output`, an axis other than 0 or -1, or weights
        of the other kind than the values.
    """
    with name_scope(name, "count", [values, weights]):
        if not isinstance(values, SparseTensor):
            values = convert_to_tensor(values, name="values")
        if weights is not None and not isinstance(weights, SparseTensor):
            weights = convert_to_tensor(weights, name="weights")
        if weights is not None and binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                             "Please specify only one.")
        if axis is None:
            axis = 0
        if axis not in (0, -1):
            raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                             f"currently supported.")
        attrs = dict(minlength=-1 if minlength is None else minlength,
                     maxlength=-1 if maxlength is None else maxlength,
                     binary_output=binary_output)
        if axis == 0:
            if isinstance(values, SparseTensor):
                if weights is not None:
                    weights = _sparse_weights(values, weights)
                values = values.values
            else:
                if weights is not None:
                    weights = reshape(weights, [-1])
                values = reshape(values, [-1])
        if isinstance(values, SparseTensor):
            weights = _sparse_weights(values, weights)
            out = apply_op("SparseCountSparseOutput", indices=values.indices,
                           values=values.values, dense_shape=values.dense_shape,
                           weights=weights, **attrs).outputs
        else:
            weights = _dense_weights(values, weights)
            out = apply_op("DenseCountSparseOutput", values=values, weights=weights,
                           **attrs).outputs
        return SparseTensor(*out)
