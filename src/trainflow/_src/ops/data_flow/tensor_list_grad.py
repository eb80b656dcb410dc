"""Gradients of the TensorList ops: a list's gradient is a list of its elements'
gradients, so each op's gradient is the matching op the other way round (a write's
gradient reads, a stack's gradient unstacks, a gather's gradient scatters)."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_, zeros_like
from trainflow._src.ops.array.gather import unique
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import reshape, shape, size
from trainflow._src.ops.math.segment import unsorted_segment_sum


def _out(op_type, **kwargs):
    return apply_op(op_type, **kwargs).outputs


def _shape(t):
    return shape(t)


def _zeros_like(t):
    return zeros_like(t)


def _length(handle):
    return _out("TensorListLength", input_handle=handle)[0]


@RegisterGradient("TensorListSetItem")
def _set_item_grad(op, dlist):
    handle, index, item = op.inputs
    dt = op.get_attr("element_dtype")
    d_item = _out("TensorListGetItem", input_handle=dlist, index=index,
                  element_shape=_shape(item), element_dtype=dt)[0]
    d_handle = _out("TensorListSetItem", input_handle=dlist, index=index,
                    item=_zeros_like(item), element_dtype=dt)[0]
    return d_handle, None, d_item


@RegisterGradient("TensorListPushBack")
def _push_back_grad(op, dlist):
    dt = op.get_attr("element_dtype")
    d_handle, d_tensor = _out("TensorListPopBack", input_handle=dlist,
                              element_shape=_shape(op.inputs[1]), element_dtype=dt)
    return d_handle, d_tensor


@RegisterGradient("TensorListPopBack")
def _pop_back_grad(op, dlist, d_tensor):
    dt = op.get_attr("element_dtype")
    if dlist is None or dlist.op.type == "ZerosLike":
        # No gradient reached the remaining list: a list of as many zero elements.
        dlist = _out("TensorListReserve", element_shape=_shape(op.outputs[1]),
                     num_elements=_length(op.outputs[0]), element_dtype=dt)[0]
    if d_tensor is None:
        d_tensor = _zeros_like(op.outputs[1])
    return _out("TensorListPushBack", input_handle=dlist, tensor=d_tensor,
                element_dtype=dt)[0], None


@RegisterGradient("TensorListGetItem")
def _get_item_grad(op, d_item):
    handle, index, element_shape = op.inputs
    dt = op.get_attr("element_dtype")
    grads = _out("TensorListReserve", element_shape=_shape(d_item),
                 num_elements=_length(handle), element_dtype=dt)[0]
    return (_out("TensorListSetItem", input_handle=grads, index=index, item=d_item,
                 element_dtype=dt)[0], None, None)


@RegisterGradient("TensorListStack")
def _stack_grad(op, d_tensor):
    return (_out("TensorListFromTensor", tensor=d_tensor, element_shape=shape(d_tensor)[1:],
                 element_dtype=op.get_attr("element_dtype"))[0], None)


@RegisterGradient("TensorListFromTensor")
def _from_tensor_grad(op, dlist):
    tensor = op.inputs[0]
    s = _shape(tensor)
    values = _out("TensorListGather", input_handle=dlist, indices=range_(s[0]),
                  element_shape=s[1:], element_dtype=op.get_attr("element_dtype"))[0]
    return values, None


@RegisterGradient("TensorListGather")
def _gather_grad(op, d_values):
    handle, indices, _ = op.inputs
    dt = op.get_attr("element_dtype")
    # Rows gathered more than once get the sum of their gradients.
    s = _shape(d_values)
    n = _shape(indices)
    flat = reshape(d_values, concat([[-1], s[size(n):]], 0))
    ids, pos = unique(reshape(indices, [-1]))
    summed = unsorted_segment_sum(flat, pos, size(ids))
    return (_out("TensorListScatterV2", tensor=summed, indices=ids,
                 element_shape=s[size(n):], num_elements=_length(handle),
                 element_dtype=dt)[0], None, None)


@RegisterGradient("TensorListScatterIntoExistingList")
def _scatter_into_grad(op, dlist):
    handle, tensor, indices = op.inputs
    dt = op.get_attr("element_dtype")
    d_tensor = _out("TensorListGather", input_handle=dlist, indices=indices,
                    element_shape=_shape(tensor)[1:], element_dtype=dt)[0]
    d_handle = _out("TensorListScatterIntoExistingList", input_handle=dlist,
                    tensor=_zeros_like(tensor), indices=indices, element_dtype=dt)[0]
    return d_handle, d_tensor, None


@RegisterGradient("TensorListScatterV2")
def _scatter_v2_grad(op, dlist):
    tensor, indices = op.inputs[:2]
    d_tensor = _out("TensorListGather", input_handle=dlist, indices=indices,
                    element_shape=_shape(tensor)[1:],
                    element_dtype=op.get_attr("element_dtype"))[0]
    return d_tensor, None, None, None


@RegisterGradient("TensorListSplit")
def _split_grad(op, dlist):
    tensor, _, lengths = op.inputs
    d_tensor = _out("TensorListConcatV2", input_handle=dlist, element_shape=_shape(tensor),
                    leading_dims=lengths, element_dtype=op.get_attr("element_dtype"))[0]
    return d_tensor, None, None


@RegisterGradient("TensorListConcatV2")
def _concat_grad(op, d_tensor, _):
    lengths = op.outputs[1]
    return (_out("TensorListSplit", tensor=d_tensor,
                 element_shape=cast(_shape(d_tensor), dtypes.int32),
                 lengths=lengths, element_dtype=op.get_attr("element_dtype"))[0], None, None)
