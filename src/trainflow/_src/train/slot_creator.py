"""Slot variables of optimizers: created next to (colocated with) their primary variable
and named `<primary>/<OptimizerName>`, `<primary>/<OptimizerName>_1`, ... as TF names them."""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.state import init_ops, variable_scope, variables


def _create_slot_var(primary, val, scope, validate_shape, shape, dtype):
    current_scope = variable_scope.get_variable_scope()
    saved_partitioner = current_scope.partitioner
    current_scope.set_partitioner(None)
    try:
        slot = variable_scope.get_variable(
            scope, initializer=val, trainable=False, shape=shape if callable(val) else None,
            dtype=dtype, validate_shape=validate_shape,
            use_resource=getattr(primary, "_is_resource_variable", False))
    finally:
        current_scope.set_partitioner(saved_partitioner)
    slice_info = getattr(primary, "_save_slice_info", None)
    if isinstance(primary, variables.Variable) and slice_info:
        real_slot_name = slot.name[len(primary.op.name + "/"):-2]
        n = slot.shape.ndims
        if n is None or n > 0:
            slot._set_save_slice_info(variables.Variable.SaveSliceInfo(
                slice_info.full_name + "/" + real_slot_name, slice_info.full_shape[:n],
                slice_info.var_offset[:n], slice_info.var_shape[:n]))
    return slot


def _create_slot_in_scope(primary, val, name, colocate_with_primary, validate_shape, shape,
                          dtype):
    """The slot variable in scope `<primary>/<name>`, colocated with `primary` if asked."""
    with variable_scope.variable_scope(None, primary.op.name + "/" + name):
        if colocate_with_primary:
            with get_default_graph().colocate_with(primary.op):
                return _create_slot_var(primary, val, "", validate_shape, shape, dtype)
        return _create_slot_var(primary, val, "", validate_shape, shape, dtype)


def create_slot(primary, val, name, colocate_with_primary=True):
    """A slot variable for `primary` initialized to the tensor `val`."""
    return _create_slot_in_scope(primary, val, name, colocate_with_primary,
                                 val.get_shape().is_fully_defined(), None, None)


def create_slot_with_initializer(primary, initializer, shape, dtype, name,
                                 colocate_with_primary=True):
    """A slot variable for `primary` of `shape`/`dtype` from an initializer."""
    return _create_slot_in_scope(primary, initializer, name, colocate_with_primary,
                                 shape.is_fully_defined(), shape, dtype)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot variable for `primary` holding zeros of its shape."""
    if dtype is None:
        dtype = primary.dtype.base_dtype
    slot_shape = primary.get_shape()
    if slot_shape.is_fully_defined():
        return create_slot_with_initializer(primary, init_ops.zeros_initializer(), slot_shape,
                                            dtype, name, colocate_with_primary)
    value = primary.initialized_value() if hasattr(primary, "initialized_value") else primary
    val = array_ops.zeros(array_ops.shape(value), dtype=dtype)
    return create_slot(primary, val, name, colocate_with_primary)
