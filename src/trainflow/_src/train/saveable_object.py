"""What a Saver saves: SaveSpec / SaveableObject, and turning a `var_list` (list, dict,
PartitionedVariables, slices, ref tensors) into sorted saveables, as TF's
`saveable_object_util` does."""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.state import resource_variable_ops, state_ops
from trainflow._src.ops.state.partitioned_variables import PartitionedVariable
from trainflow._src.ops.state.variables import Variable

_VARIABLE_OPS = ("Variable", "VariableV2", "AutoReloadVariable")


class SaveSpec:
    """One tensor to save: its value, slice spec ("" for the whole tensor) and key.

    Args:
      tensor: a Tensor, a Variable, or a callable returning a Tensor.
      slice_spec: the shape-and-slice string ("10 3 0,4:0,3"), or "".
      name: the checkpoint key.
      dtype: the tensor's dtype (needed when `tensor` is a callable).
      device: the device to save from (defaults to the tensor's).
    """

    def __init__(self, tensor, slice_spec, name, dtype=None, device=None):
        self._tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        if callable(tensor) and not isinstance(tensor, (Tensor, Variable)):
            if dtype is None or device is None:
                raise AssertionError("When passing a callable `tensor` to a SaveSpec, an "
                                     "explicit dtype and device must be provided.")
            self.dtype = dtype
            self.device = device
        else:
            self.dtype = (dtype or tensor.dtype).base_dtype
            self.device = tensor.device if device is None else device

    @property
    def tensor(self):
        """The tensor to save (a callable is called now)."""
        t = self._tensor
        if callable(t) and not isinstance(t, (Tensor, Variable)):
            return t()
        return t


class SaveableObject:
    """Something a Saver saves as one or more tensors and restores with `restore`.

    Args:
      op: the object being saved (a Variable or ref tensor for variables).
      specs: the list of SaveSpecs.
      name: the name to save under.
    """

    def __init__(self, op, specs, name):
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def device(self):
        """The device of the first spec."""
        return self.specs[0].device

    def restore(self, restored_tensors, restored_shapes):
        """Returns an op assigning `restored_tensors` (one per spec) to the object."""
        raise NotImplementedError("SaveableObject subclasses define restore()")


class ReferenceVariableSaveable(SaveableObject):
    """A TF1 ref variable (or one slice of a partitioned one) as a SaveableObject."""

    def __init__(self, var, slice_spec, name):
        spec = SaveSpec(var, slice_spec, name, dtype=var.dtype)
        super().__init__(var, [spec], name)

    def restore(self, restored_tensors, restored_shapes):
        restored = restored_tensors[0]
        if restored_shapes is not None:
            restored = array_ops.reshape(restored, restored_shapes[0])
        return state_ops.assign(self.op, restored,
                                validate_shape=restored_shapes is None and
                                self.op.get_shape().is_fully_defined())


class ResourceVariableSaveable(SaveableObject):
    """A resource variable (or one slice of one) as a SaveableObject, under the same keys
    as a ref variable: saved from its `Read/ReadVariableOp` snapshot, restored through an
    Identity into an AssignVariableOp (TF's graph-mode form)."""

    def __init__(self, var, slice_spec, name):
        spec = SaveSpec(var._snapshot, slice_spec, name, dtype=var.dtype, device=var.device)
        super().__init__(var, [spec], name)

    def restore(self, restored_tensors, restored_shapes):
        restored = restored_tensors[0]
        if restored_shapes is not None:
            restored = array_ops.reshape(restored, restored_shapes[0])
        restored = array_ops.identity(restored)
        self.op.shape.assert_is_compatible_with(restored.shape)
        return resource_variable_ops.assign_variable_op(self.op.handle, restored)


def all_saveable_objects(scope=None):
    """The global variables and saveable objects of the default graph (under `scope`)."""
    g = get_default_graph()
    return (g.get_collection(GraphKeys.GLOBAL_VARIABLES, scope) +
            g.get_collection(GraphKeys.SAVEABLE_OBJECTS, scope))


def _variable_saveable(var, slice_spec, name):
    if getattr(var, "_is_resource_variable", False):
        return ResourceVariableSaveable(var, slice_spec, name)
    return ReferenceVariableSaveable(var, slice_spec, name)


def _is_variable_tensor(t):
    return isinstance(t, Tensor) and t.op.type in _VARIABLE_OPS


def _add_named(names_to_saveables, name, var):
    if name not in names_to_saveables:
        names_to_saveables[name] = var
    elif isinstance(names_to_saveables[name], list):
        names_to_saveables[name].append(var)
    else:
        raise ValueError(f"At least two variables have the same name: {name}")


def _slice_name(var, slice_name):
    if not isinstance(var, Variable):
        raise ValueError(f"Slices must all be Variables: {var}")
    info = var._get_save_slice_info()
    if not info:
        raise ValueError(f"Slices must all be slices: {var}")
    if slice_name is not None and slice_name != info.full_name:
        raise ValueError(f"Slices must all be from the same tensor: {slice_name} != "
                         f"{info.full_name}")
    return info.full_name


def op_list_to_dict(op_list):
    """Maps checkpoint names to what to save for a list of Variables, PartitionedVariables,
    slice lists, ref tensors or SaveableObjects (TF's `op_list_to_dict`).

    Raises:
      TypeError: `op_list` is not a list, tuple or set.
      ValueError: two entries have the same name.
    """
    if not isinstance(op_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list: {op_list}")
    flat = []
    for item in op_list:
        flat.extend(item if isinstance(item, (list, tuple)) else [item])
    flat = sorted(flat, key=lambda x: x.name)
    names_to_saveables = {}
    for var in flat:
        if isinstance(var, SaveableObject):
            _add_named(names_to_saveables, var.name, var)
        elif isinstance(var, PartitionedVariable):
            slice_name = None
            for v in var:
                slice_name = _slice_name(v, slice_name)
                names_to_saveables.setdefault(slice_name, [])
                _add_named(names_to_saveables, slice_name, v)
        elif isinstance(var, Variable):
            info = var._get_save_slice_info()
            if info:
                names_to_saveables.setdefault(info.full_name, [])
                _add_named(names_to_saveables, info.full_name, var)
            elif getattr(var, "_is_resource_variable", False):
                _add_named(names_to_saveables, var.op.name, var)
            else:
                _add_named(names_to_saveables, var.op.name, var._ref())
        elif _is_variable_tensor(var):
            _add_named(names_to_saveables, var.op.name, var)
        else:
            raise TypeError("Can't save {!r}: only Variables, PartitionedVariables, variable "
                            "tensors and SaveableObjects can be saved".format(var))
    return names_to_saveables


def saveable_objects_for_op(op, name):
    """Yields the SaveableObjects for one `names_to_saveables` entry.

    Raises:
      TypeError: the name is not a string, or the value is not a variable.
      ValueError: a slice list mixes tensors or holds non-slices.
    """
    if not isinstance(name, str):
        raise TypeError("names_to_saveables must be a dict mapping string names to trackable "
                        f"operations. Name is not a string: {name}")
    if isinstance(op, SaveableObject):
        yield op
    elif isinstance(op, (list, tuple, PartitionedVariable)):
        slice_name = None
        for variable in list(op):
            if isinstance(variable, SaveableObject):
                yield variable
                continue
            slice_name = _slice_name(variable, slice_name)
            yield _variable_saveable(variable, variable._get_save_slice_info().spec, name)
    elif getattr(op, "_is_resource_variable", False):
        yield ResourceVariableSaveable(op, "", name)
    else:
        variable = convert_to_tensor(op, as_ref=True) if isinstance(op, Variable) else op
        if not _is_variable_tensor(variable):
            raise TypeError("names_to_saveables must be a dict mapping string names to "
                            f"Tensors/Variables. Not a variable: {variable}")
        yield ReferenceVariableSaveable(variable, "", name)


def validate_and_slice_inputs(names_to_saveables):
    """The SaveableObjects of a `var_list`, sorted by name.

    Raises:
      TypeError: `names_to_saveables` is neither a dict nor a list.
      ValueError: one object would be saved under two names.
    """
    if not isinstance(names_to_saveables, dict):
        names_to_saveables = op_list_to_dict(names_to_saveables)
    saveables = []
    seen = set()
    for name, op in sorted(names_to_saveables.items(), key=lambda x: x[0]):
        for saveable in saveable_objects_for_op(op, name):
            key = _identity(saveable.op)
            if key is not None and key in seen:
                raise ValueError(f"The same saveable will be restored with two names: "
                                 f"{saveable.name}")
            saveables.append(saveable)
            seen.add(key)
    return saveables


def _identity(op):
    if op is None:
        return None
    if isinstance(op, Variable):
        return id(op._variable)
    return id(op)
