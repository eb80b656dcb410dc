"""Sliced assignment to variables: `var[0:2].assign(value)` (`StridedSliceAssign`).

`var[spec]` is the StridedSlice of the variable's value, as for any tensor; the
tensor it returns also has an `assign(value, name=None)` method that writes `value`
into that slice of the variable's buffer in place and returns the variable's ref,
as TensorFlow 1.x's ref variables do.
"""
import weakref

import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.array.shape_util import fmt_dims, invalid_argument
from trainflow._src.ops.array.slicing import _slice_helper, strided_slice_plan
from trainflow._src.ops.state.state_ops import _lock
from trainflow._src.ops.state.variables import Variable

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _strided_slice_assign_kernel(ref, begin, end, strides, value, *, begin_mask, end_mask,
                                 ellipsis_mask, new_axis_mask, shrink_axis_mask, ctx):
    with _lock(ref, True):
        buf = ref.get()
        try:
            final, index = strided_slice_plan(buf.shape, begin.tolist(), end.tolist(),
                                              strides.tolist(), begin_mask, end_mask,
                                              ellipsis_mask, new_axis_mask, shrink_axis_mask)
        except ValueError as e:
            raise invalid_argument(str(e)) from None
        value = np.asarray(value)
        if tuple(value.shape) != tuple(final):
            raise invalid_argument(f"sliced l-value shape {fmt_dims(final)} does not match "
                                   f"r-value shape {fmt_dims(value.shape)}. Automatic "
                                   "broadcasting not yet implemented.")
        target = buf[index]
        buf[index] = value.reshape(np.shape(target))
    return ref


def _ref_shape(op):
    return [op.inputs[0].shape]


register_op("StridedSliceAssign",
            inputs=["ref: Ref(T)", "begin: Index", "end: Index", "strides: Index",
                    "value: T"],
            outputs=["output_ref: Ref(T)"],
            attrs=["T: type", "Index: {int32, int64}", "begin_mask: int = 0",
                   "end_mask: int = 0", "ellipsis_mask: int = 0", "new_axis_mask: int = 0",
                   "shrink_axis_mask: int = 0"],
            shape_fn=_ref_shape, kernel=_strided_slice_assign_kernel, stateful=True)
NotDifferentiable("StridedSliceAssign")

# Slices of variables -> the closure that assigns into them.
_ASSIGNERS = weakref.WeakKeyDictionary()


def _sliced_assign(self):
    fn = _ASSIGNERS.get(self)
    if fn is None:
        raise AttributeError("'Tensor' object has no attribute 'assign'")
    return fn


def _variable_getitem(var, slice_spec):
    """`var[slice_spec]`: the slice of var's value, assignable through `.assign`."""
    out = _slice_helper(var.value(), slice_spec, var)
    op = out.op
    if op.type != "StridedSlice":
        return out
    begin, end, strides = op.inputs[1:4]
    masks = {m: op.get_attr(m) for m in _MASKS}
    parent_name = op.name

    def assign(value, name=None):
        """Writes `value` into this slice of the variable (`StridedSliceAssign`);
        returns the variable's ref."""
        return apply_op("StridedSliceAssign", ref=var._ref(), begin=begin, end=end,
                        strides=strides, value=value, name=name or parent_name + "/_assign",
                        **masks).outputs[0]
    _ASSIGNERS[out] = assign
    return out


Tensor.assign = property(_sliced_assign)
Variable.__getitem__ = _variable_getitem
