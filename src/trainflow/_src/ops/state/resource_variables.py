"""`ResourceVariable`: TF's resource variable, as TF 2.x builds it in a compat.v1 graph.

A ResourceVariable named ``w`` is the ops ``w`` (VarHandleOp), ``w/Initializer/...``
(the initial value, colocated with the handle), ``w/IsInitialized/VarIsInitializedOp``,
``w/Assign`` (AssignVariableOp, the initializer) and ``w/Read/ReadVariableOp``. Each
use of its value (`value()`, tensor conversion, operators) adds a fresh ReadVariableOp
in the current name scope, as TensorFlow does; updates are AssignVariableOp /
AssignAddVariableOp / ResourceScatter* ops on the handle.

`enable_resource_variables()` (in `tf.compat.v1`) makes `tf.Variable` and
`tf.get_variable` build these by default; `use_resource=True` asks for one at a time.
"""
import threading

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import as_shape, unknown_shape
from trainflow._src.ops.state.variable_args import check_variable_args
from trainflow._src.ops.state import resource_variable_ops as rv_ops
from trainflow._src.ops.state import variables
from trainflow._src.ops.state.variables import Variable
from trainflow._src.ops.array import identity
from trainflow._src.ops.control_flow import cond

__all__ = ["ResourceVariable", "enable_resource_variables", "disable_resource_variables",
           "resource_variables_enabled", "is_resource_variable"]

_lock = threading.Lock()
_DEFAULT_USE_RESOURCE = False


def enable_resource_variables():
    """Makes `tf.Variable` and `tf.get_variable` create resource variables by default."""
    global _DEFAULT_USE_RESOURCE
    with _lock:
        _DEFAULT_USE_RESOURCE = True


def disable_resource_variables():
    """Back to TF1's default: reference variables (VariableV2)."""
    global _DEFAULT_USE_RESOURCE
    with _lock:
        _DEFAULT_USE_RESOURCE = False


def resource_variables_enabled():
    """Whether new variables are resource variables by default."""
    return _DEFAULT_USE_RESOURCE


def is_resource_variable(var):
    """True for a ResourceVariable."""
    return getattr(var, "_is_resource_variable", False)


class ResourceVariable(Variable):
    """A resource variable (`tf.Variable(use_resource=True)`); its value lives behind a
    DT_RESOURCE handle in the session's resource manager.

    Args: as `tf.Variable` (`use_resource` and `expected_shape` are accepted and ignored).

    Raises:
      ValueError: as `tf.Variable`.
    """

    _is_resource_variable = True

    def __init__(self, initial_value=None, trainable=None, collections=None,
                 validate_shape=True, caching_device=None, name=None, dtype=None,
                 variable_def=None, import_scope=None, constraint=None,
                 distribute_strategy=None, synchronization=None, aggregation=None,
                 shape=None, use_resource=None, expected_shape=None):
        del distribute_strategy, use_resource, expected_shape
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            self._dtype = self._variable.op._attrs["dtype"]
            self._shape = self._variable.op._attrs["shape"]
            return
        self._init_resource(initial_value, trainable, collections, validate_shape,
                            caching_device, name, dtype, constraint, synchronization,
                            aggregation, shape)

    def _init_resource(self, initial_value, trainable, collections, validate_shape,
                       caching_device, name, dtype, constraint, synchronization, aggregation,
                       shape):
        synchronization, aggregation, trainable, collections, dtype = \
            check_variable_args(initial_value, trainable, collections, constraint, dtype,
                                synchronization, aggregation, name)
        init_from_fn = callable(initial_value)
        graph = get_default_graph()
        with variables.init_scope(graph), name_scope(
                name, "Variable", [] if init_from_fn else [initial_value]) as scope:
            handle_name = scope[:-1]
            with variables._colocation_attr_scope(graph, handle_name):
                with graph.name_scope("Initializer"), graph.device(None):
                    value = initial_value() if init_from_fn else initial_value
                    self._initial_value = convert_to_tensor(value, name="initial_value",
                                                            dtype=dtype)
                if self._initial_value.op._cond_context is not None:
                    raise ValueError(
                        f"Initializer for variable {handle_name} is from inside a "
                        "control-flow construct, such as a loop or conditional. When creating "
                        "a variable inside a loop or conditional, use a lambda as the "
                        "initializer.")
                if shape is None:
                    shape = (self._initial_value.get_shape() if validate_shape
                             else unknown_shape())
                self._shape = as_shape(shape)
                self._dtype = self._initial_value.dtype.base_dtype
                self._variable = rv_ops.var_handle_op(self._dtype, self._shape,
                                                      shared_name=handle_name, name=scope,
                                                      debug_name=scope, allowed_devices=[])
            if validate_shape and not self._initial_value.get_shape().is_fully_defined():
                raise ValueError(f"initial_value must have a shape specified: "
                                 f"{self._initial_value}")
            with graph.name_scope("IsInitialized"):
                self._is_initialized_op = rv_ops.var_is_initialized_op(self._variable)
            self._initializer_op = rv_ops.assign_variable_op(
                self._variable, self._initial_value, name="Assign")
            with graph.name_scope("Read"), graph.device(caching_device):
                self._snapshot = rv_ops.read_variable_op(self._variable, self._dtype)
        graph.add_to_collections(collections, self)
        self._trainable = trainable
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._caching_device = caching_device
        self._save_slice_info = None
        self._constraint = constraint

    # -- identity and static facts -------------------------------------------------------
    @property
    def handle(self):
        """The DT_RESOURCE handle tensor (the VarHandleOp output)."""
        return self._variable

    @property
    def dtype(self):
        """The value dtype (not a ref type)."""
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    __str__ = __repr__

    # -- reading -------------------------------------------------------------------------
    def _read_variable_op(self):
        return rv_ops.read_variable_op(self._variable, self._dtype)

    def value(self):
        """A new ReadVariableOp of the variable in the current name scope."""
        with self.graph.colocate_with(None, ignore_existing=True):
            return self._read_variable_op()

    _AsTensor = value

    def read_value(self):
        """An Identity of a new read, the read under "Read/" (TF's form)."""
        with self.graph.name_scope("Read"):
            value = self._read_variable_op()
        return identity.identity(value)

    def _as_graph_element(self):
        """What fetching the variable runs: its `Read/ReadVariableOp`."""
        return self._snapshot

    def eval(self, session=None):
        """The variable's current value in `session` (default: the default session)."""
        return self._snapshot.eval(session=session)

    def is_initialized(self, name=None):
        """A VarIsInitializedOp: whether the variable holds a value."""
        return rv_ops.var_is_initialized_op(self._variable, name=name)

    def initialized_value(self):
        """The variable's value once initialized, its initial value otherwise."""
        with variables.init_scope():
            return cond.cond(self.is_initialized(), self.read_value,
                                         lambda: self.initial_value)

    def sparse_read(self, indices, name=None):
        """A ResourceGather of rows `indices` (what `tf.gather(var, indices)` builds)."""
        with name_scope(name, "Gather", [self, indices]) as scope:
            return rv_ops.resource_gather(self._variable, indices, self._dtype,
                                          name=scope)

    # -- updates --------------------------------------------------------------------------
    def _after(self, op, read_value):
        if not read_value:
            return op
        with op.graph.control_dependencies([op]):  # op's graph: a function's, inside one
            return self._read_variable_op()

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """An AssignVariableOp; returns a read after it (or the op if read_value is False)."""
        del use_locking
        value = convert_to_tensor(value, dtype=self._dtype)
        self._shape.assert_is_compatible_with(value.shape)
        return self._after(rv_ops.assign_variable_op(self._variable, value, name=name),
                           read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """An AssignAddVariableOp; returns a read after it (or the op)."""
        del use_locking
        delta = convert_to_tensor(delta, dtype=self._dtype)
        return self._after(rv_ops.assign_add_variable_op(self._variable, delta, name=name),
                           read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """An AssignSubVariableOp; returns a read after it (or the op)."""
        del use_locking
        delta = convert_to_tensor(delta, dtype=self._dtype)
        return self._after(rv_ops.assign_sub_variable_op(self._variable, delta, name=name),
                           read_value)

    def _scatter_op(self, op_type, indices, updates, name=None):
        fn = {"ScatterAdd": rv_ops.resource_scatter_add,
              "ScatterSub": rv_ops.resource_scatter_sub,
              "ScatterUpdate": rv_ops.resource_scatter_update,
              "ScatterMul": rv_ops.resource_scatter_mul,
              "ScatterDiv": rv_ops.resource_scatter_div,
              "ScatterMin": rv_ops.resource_scatter_min,
              "ScatterMax": rv_ops.resource_scatter_max}.get(op_type)
        if fn is None:
            raise TypeError(f"{op_type} is not available on resource variables")
        op = fn(self._variable, indices, convert_to_tensor(updates, dtype=self._dtype),
                name=name)
        return self._after(op, True)

    def _scatter(self, fn, sparse_delta, use_locking, name):
        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        kinds = ("add", "sub", "update", "mul", "div", "min", "max")
        op_type = {f"scatter_{k}": f"Scatter{k.capitalize()}" for k in kinds}.get(
            fn.__name__, fn.__name__)
        return self._scatter_op(op_type, sparse_delta.indices, sparse_delta.values, name)

    def count_up_to(self, limit):
        """A ResourceCountUpTo op on this (scalar integer) variable."""
        return rv_ops.resource_count_up_to(self._variable, limit=limit, T=self._dtype)

    # -- serialization ------------------------------------------------------------------------
    def to_proto(self, export_scope=None):
        """The VariableDef proto (with is_resource set), or None outside `export_scope`."""
        var_def = super().to_proto(export_scope)
        if var_def is not None:
            var_def.is_resource = True
        return var_def

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        return ResourceVariable(variable_def=variable_def, import_scope=import_scope)
