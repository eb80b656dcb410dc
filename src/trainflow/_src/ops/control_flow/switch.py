"""Switch and Merge: the dataflow primitives of TF1 conditionals.

`Switch(data, pred)` forwards `data` to `output_true` or `output_false`; the
other output is dead (`framework.kernel_context.DEAD`), and the executor skips every op
downstream of a dead value. `Merge(inputs)` forwards its one live input and the
index of that input.
"""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import colocate_with, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.framework.kernel_context import DEAD


def _switch_kernel(data, pred):
    if pred:
        return DEAD, data
    return data, DEAD


def _switch_shape(op):
    pred_shape = op._inputs[1]._shape
    if pred_shape.rank is not None and pred_shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {pred_shape.rank}")
    data_shape = op._inputs[0]._shape
    return [data_shape, data_shape]


register_op("Switch", inputs=["data: T", "pred: bool"],
            outputs=["output_false: T", "output_true: T"], attrs=["T: type"],
            shape_fn=_switch_shape, kernel=_switch_kernel, output_aliases_input=True)
register_op("RefSwitch", inputs=["data: Ref(T)", "pred: bool"],
            outputs=["output_false: Ref(T)", "output_true: Ref(T)"], attrs=["T: type"],
            shape_fn=_switch_shape, kernel=_switch_kernel, output_aliases_input=True)


def _merge_kernel(inputs):
    for i, value in enumerate(inputs):
        if value is not DEAD:
            return value, np.int32(i)
    return DEAD, DEAD


def _merge_shape(op):
    first = op._inputs[0]._shape
    if first.rank is None:
        return [unknown_shape(), TensorShape([])]
    dims = list(first._dims)
    for t in op._inputs[1:]:
        other = t._shape
        if other.rank != len(dims):
            return [unknown_shape(), TensorShape([])]
        dims = [d if d == o else None for d, o in zip(dims, other._dims)]
    return [TensorShape(dims), TensorShape([])]


register_op("Merge", inputs=["inputs: N * T"], outputs=["output: T", "value_index: int32"],
            attrs=["T: type", "N: int >= 1"], shape_fn=_merge_shape, kernel=_merge_kernel,
            output_aliases_input=True)
register_op("RefMerge", inputs=["inputs: N * Ref(T)"],
            outputs=["output: Ref(T)", "value_index: int32"],
            attrs=["T: type", "N: int >= 1"], shape_fn=_merge_shape, kernel=_merge_kernel,
            output_aliases_input=True)


def switch(data, pred, dtype=None, name=None):
    """Forwards `data` to the output chosen by the scalar bool `pred`.

    Returns:
      (output_false, output_true): the untaken one is dead when the graph runs.

    Raises:
      TypeError: if `pred` is not a bool tensor; ValueError if it is not a scalar.
    """
    with name_scope(name, "Switch", [data, pred]) as scope:
        data = convert_to_tensor(data, dtype=dtype, name="data", as_ref=True)
        pred = convert_to_tensor(pred, name="pred")
        op_type = "RefSwitch" if data.dtype._is_ref_dtype else "Switch"
        op = apply_op(op_type, data=data, pred=pred, name=scope)
        return op.outputs[0], op.outputs[1]


def switch_ref_or_tensor(data, pred, name="Switch"):
    """`switch` colocated with `data`, as the conditional contexts build it."""
    data = convert_to_tensor(data, name="data", as_ref=True)
    with colocate_with(data, ignore_existing=True):
        return switch(data, pred, name=name)


def merge(inputs, name=None):
    """Forwards the one live tensor of `inputs`.

    Returns:
      (output, value_index): the live value and its index in `inputs`.

    Raises:
      ValueError: if an input is None.
    """
    if any(inp is None for inp in inputs):
        raise ValueError(f"At least one of the merge inputs is None: {inputs}")
    with name_scope(name, "Merge", inputs) as scope:
        inputs = [convert_to_tensor(inp, as_ref=True) for inp in inputs]
        op_type = "RefMerge" if all(t.dtype._is_ref_dtype for t in inputs) else "Merge"
        op = apply_op(op_type, inputs=inputs, name=scope)
        return op.outputs[0], op.outputs[1]
