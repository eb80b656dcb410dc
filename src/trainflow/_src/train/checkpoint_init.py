"""`tf.train.init_from_checkpoint`: replaces variables' initializers with values read from a
checkpoint (RestoreV2 ops), following an assignment map of names or scopes."""
import logging
import os

from trainflow._src.framework.scopes import device
from trainflow._src.ops.io import save_restore
from trainflow._src.ops.state.partitioned_variables import PartitionedVariable
from trainflow._src.ops.state.variable_store import get_default_variable_store
from trainflow._src.ops.state.variables import Variable
from trainflow._src.train import checkpoint_management
from trainflow._src.train.checkpoint_utils import load_checkpoint
from trainflow._src.train.saveable_object import op_list_to_dict, saveable_objects_for_op

_log = logging.getLogger(__name__)


def _checkpoint_filename(ckpt_dir_or_file):
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return checkpoint_management.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def _collect_partitioned_variable(name, all_vars):
    if f"{name}/part_0" not in all_vars:
        return None
    parts = []
    while f"{name}/part_{len(parts)}" in all_vars:
        parts.append(all_vars[f"{name}/part_{len(parts)}"])
    return parts


def set_checkpoint_initializer(variable, ckpt_file, tensor_name, slice_spec,
                               name="checkpoint_initializer"):
    """Makes `variable`'s initializer assign tensor `tensor_name` (slice `slice_spec`) of
    `ckpt_file`; the RestoreV2 op runs on the CPU of the variable's device."""
    base_type = variable.dtype.base_dtype
    with device(variable.device), device("/cpu:0"):
        restore = save_restore.restore_v2(ckpt_file, [tensor_name], [slice_spec], [base_type],
                                          name=name)[0]
        saveables = [s for n, op in op_list_to_dict([variable]).items()
                     for s in saveable_objects_for_op(op, n)]
    init_op = saveables[0].restore([restore], restored_shapes=None)
    variable._initializer_op = getattr(init_op, "op", init_op)
    restore.set_shape(variable.shape)
    variable._initial_value = restore


def _set_variable_or_list_initializer(variable_or_list, ckpt_file, tensor_name):
    if isinstance(variable_or_list, (list, tuple)):
        slice_name = None
        for v in variable_or_list:
            info = v._get_save_slice_info()
            if slice_name is None:
                slice_name = info.full_name
            elif slice_name != info.full_name:
                raise ValueError(f"Slices must all be from the same tensor: {slice_name} != "
                                 f"{info.full_name}")
            set_checkpoint_initializer(v, ckpt_file, tensor_name, info.spec)
    else:
        set_checkpoint_initializer(variable_or_list, ckpt_file, tensor_name, "")


def _as_variable_or_list(x):
    if isinstance(x, PartitionedVariable):
        return list(x)
    if isinstance(x, Variable):
        return x
    if isinstance(x, list) and x and all(isinstance(v, Variable) for v in x):
        return x
    return None


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Initializes variables from a checkpoint instead of their initializers.

    `assignment_map` maps checkpoint names to current variables: `'ckpt_name': var` (a
    Variable, a list of partitions, a PartitionedVariable, or a variable's name), or whole
    scopes `'ckpt_scope/': 'scope/'` (every variable under `scope/`, partitions included),
    with `'/'` standing for the root on either side.

    Raises:
      ValueError: a tensor is not in the checkpoint, shapes differ, or a scope maps to a
        name that does not end in '/'.
    """
    ckpt_file = _checkpoint_filename(ckpt_dir_or_file)
    with load_checkpoint(ckpt_dir_or_file) as reader:
        variable_map = reader.get_variable_to_shape_map()
    items = assignment_map.items() if hasattr(assignment_map, "items") else assignment_map
    store_vars = get_default_variable_store()._vars
    for tensor_name_in_ckpt, current in sorted(items, key=lambda pair: pair[0]):
        var = _as_variable_or_list(current)
        if var is None:
            var = store_vars.get(current) or _collect_partitioned_variable(current, store_vars)
        if var is not None:
            if tensor_name_in_ckpt not in variable_map:
                raise ValueError(f"Tensor {tensor_name_in_ckpt} is not found in "
                                 f"{ckpt_dir_or_file} checkpoint {variable_map}")
            if isinstance(var, Variable):
                if not var.get_shape().is_compatible_with(variable_map[tensor_name_in_ckpt]):
                    raise ValueError(
                        f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with "
                        f"shape of tensor {tensor_name_in_ckpt} "
                        f"({variable_map[tensor_name_in_ckpt]}) from checkpoint reader.")
            _set_variable_or_list_initializer(var, ckpt_file, tensor_name_in_ckpt)
            continue
        _init_scope(ckpt_dir_or_file, ckpt_file, variable_map, store_vars,
                    tensor_name_in_ckpt, current)


def _init_scope(ckpt_dir_or_file, ckpt_file, variable_map, store_vars, tensor_name_in_ckpt,
                current):
    scopes = current[:current.rindex("/")] if "/" in current else ""
    if not tensor_name_in_ckpt.endswith("/"):
        raise ValueError(f"Assignment map with scope only name {scopes} should map to scope "
                         f"only {tensor_name_in_ckpt}. Should be 'scope/': 'other_scope/'.")
    scope_variables = set()
    for var_name in store_vars:
        if not scopes or var_name.startswith(scopes + "/"):
            if "/part_" in var_name:
                var_name = var_name[:var_name.index("/part_")]
            scope_variables.add(var_name)
    for var_name in sorted(scope_variables):
        full_tensor_name = var_name[len(scopes):]
        if current != "/":
            full_tensor_name = full_tensor_name[1:]
        if tensor_name_in_ckpt != "/":
            full_tensor_name = tensor_name_in_ckpt + full_tensor_name
        if full_tensor_name.endswith("/"):
            full_tensor_name = full_tensor_name[:-1]
        if full_tensor_name not in variable_map:
            raise ValueError(f"Tensor {full_tensor_name} ({var_name[len(scopes) + 1:]} in "
                             f"{tensor_name_in_ckpt}) is not found in {ckpt_dir_or_file} "
                             "checkpoint")
        var = store_vars.get(var_name) or _collect_partitioned_variable(var_name, store_vars)
        _set_variable_or_list_initializer(var, ckpt_file, full_tensor_name)
        _log.debug("Initialize variable %s from checkpoint %s with %s", var_name,
                   ckpt_dir_or_file, full_tensor_name)
