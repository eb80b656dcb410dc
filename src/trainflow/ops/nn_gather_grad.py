"""Gradients of Gather and GatherV2, registered here because embedding lookups need them
and the array ops do not register them yet (move them next to the array ops' gather
when those gain gradients; this module then goes away).

Along axis 0 the gradient is an IndexedSlices holding one row of the incoming gradient
per looked-up index, so optimizers update only those rows. Along another axis it is
a dense sum of the gathered slices back into place.
"""
from trainflow.framework import registry
from trainflow.framework.tensor_util import constant_value


def _dense(grad):
    from trainflow.framework.indexed_slices import IndexedSlices
    from trainflow.framework.tensor_conversion import convert_to_tensor
    return convert_to_tensor(grad) if isinstance(grad, IndexedSlices) else grad


def _rows_gradient(params, indices, grad):
    """IndexedSlices(values=grad rows, indices=flat indices, dense_shape=params' shape)."""
    from trainflow.framework.indexed_slices import IndexedSlices
    from trainflow.ops import array_ops
    params_shape = array_ops.shape(params)
    count = array_ops.expand_dims(array_ops.size(indices), 0)
    values = array_ops.reshape(_dense(grad), array_ops.concat([count, params_shape[1:]], 0))
    return IndexedSlices(values, array_ops.reshape(indices, count), params_shape)


def _axis_gradient(params, indices, grad, axis):
    """The dense gradient of a gather along a static, non-zero `axis`."""
    from trainflow.ops import array_ops, math_ops
    rank = params.shape.ndims
    if rank is None:
        raise ValueError(f"The gradient of a gather along axis {axis} needs params of known "
                         f"rank; got {params}")
    axis %= rank
    params_shape = array_ops.shape(params)
    # grad has shape outer + indices.shape + inner; flatten the index dims, bring them
    # to the front, sum the slices into their rows, and move the axis back.
    values = array_ops.reshape(_dense(grad), array_ops.concat(
        [params_shape[:axis], [-1], params_shape[axis + 1:]], 0))
    perm = [axis] + [i for i in range(rank) if i != axis]
    summed = math_ops.unsorted_segment_sum(array_ops.transpose(values, perm),
                                           array_ops.reshape(indices, [-1]),
                                           params_shape[axis])
    inverse = [perm.index(i) for i in range(rank)]
    return array_ops.transpose(summed, inverse)


def _gather_v2_grad(op, grad):
    params, indices, axis = op.inputs
    batch_dims = op._attrs.get("batch_dims", 0)
    if batch_dims != 0:
        raise ValueError(f"The gradient of GatherV2 with batch_dims={batch_dims} is not "
                         f"supported (op {op.name}); only batch_dims=0 is.")
    axis_value = constant_value(axis)
    if axis_value is None:
        raise ValueError(f"The gradient of GatherV2 needs a constant axis (op {op.name}).")
    axis_value = int(axis_value)
    if axis_value < 0 and params.shape.ndims is not None:
        axis_value += params.shape.ndims
    if axis_value == 0:
        return _rows_gradient(params, indices, grad), None, None
    return _axis_gradient(params, indices, grad, axis_value), None, None


def _gather_grad(op, grad):
    params, indices = op.inputs
    return _rows_gradient(params, indices, grad), None


for _op_type, _fn in (("GatherV2", _gather_v2_grad), ("Gather", _gather_grad)):
    if not registry.get_gradient(_op_type)[0]:
        registry.RegisterGradient(_op_type)(_fn)
