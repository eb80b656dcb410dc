"""`tf.Variable`: TF1's reference variable (RefVariable) and its graph structure.

A Variable named ``v`` is four ops, named as in TensorFlow: ``v`` (VariableV2, the ref),
``v/initial_value`` (or ``v/Initializer/...`` when the initial value is a callable),
``v/Assign`` (the initializer) and ``v/read`` (an Identity snapshot, which is what
`value()` and tensor conversion give). Its value lives in the running session (contract
5 of docs/architecture.md). Collection helpers (`global_variables`,
`global_variables_initializer`, ...) are in `variable_helpers` and re-exported here.
"""
import contextlib
import inspect
import re

from trainflow._src.framework import session_stack
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import (convert_to_tensor,
                                                   register_tensor_conversion_function)
from trainflow._src.framework.tensor_shape import as_shape, unknown_shape
from trainflow._src.ops.state import batch_scatter, state_ops
from trainflow._src.ops.state.variable_args import (  # noqa: F401 - public here too
    VariableAggregation, VariableSynchronization, check_variable_args as _check_args,
    validate_synchronization_aggregation_trainable)
from trainflow._src.ops.array import identity
from trainflow._src.ops.control_flow import cond


def strip_name_scope(name, export_scope):
    """Removes `export_scope/` from the front of `name` (also after "^" or "loc:@")."""
    if not export_scope:
        return name
    export_scope = export_scope.rstrip("/")
    return re.sub(r"([\^]|loc:@|^)" + re.escape(export_scope) + r"[\/]+(.*)", r"\1\2", name,
                  count=1)


def prepend_name_scope(name, import_scope):
    """Prefixes `name` with `import_scope/` (after a leading "^" or "loc:@")."""
    if not import_scope:
        return name
    import_scope = import_scope.rstrip("/")
    return re.sub(r"([\^]|loc:@|^)(.*)", lambda m: m.group(1) + import_scope + "/" + m.group(2),
                  name, count=1)


@contextlib.contextmanager
def init_scope(graph=None):
    """Lifts op creation out of control dependencies and conditionals, and out of
    function graphs (a while loop's body) into the outermost graph, keeping the name
    scope (what TF's `init_scope` does in graph mode)."""
    graph = graph or get_default_graph()
    name_stack = graph._state.name_stack
    while isinstance(graph, FuncGraph):
        graph = graph.outer_graph
    state = graph._state
    saved_cond, saved_stack = state.cond_context, state.name_stack
    state.cond_context, state.name_stack = None, name_stack
    try:
        with graph.as_default(), graph.control_dependencies(None):
            yield
    finally:
        state.cond_context, state.name_stack = saved_cond, saved_stack


@contextlib.contextmanager
def _colocation_attr_scope(graph, group):
    """Gives every op created inside a `_class` colocation attr naming `group` (unless it
    already has one), as TF's attr scope does for a variable's initializer ops."""
    start = len(graph._nodes_by_id)
    try:
        yield
    finally:
        attr = [b"loc:@" + group.encode()]
        for op in graph._nodes_by_id[start:]:
            if "_class" not in op._attrs:
                op._attrs["_class"] = list(attr)


class _VariableMeta(type):
    """Routes `Variable(...)` through the creators of `variable_creator_scope`."""

    def __call__(cls, *args, **kwargs):
        stack = get_default_graph()._variable_creator_stack
        if cls is not Variable:
            return super().__call__(*args, **kwargs)
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.pop("self")

        def make_getter(creator, previous):
            return lambda **kw: creator(previous, **kw)

        def getter(**kw):
            # use_resource (or enable_resource_variables, or an imported resource
            # VariableDef) picks ResourceVariable, as TF's VariableV1 does.
            # lazy: an upward call; ResourceVariable (resource_variables) subclasses Variable.
            from trainflow._src.ops.state import resource_variables as rv
            use = kw.get("use_resource")
            if use is None:
                use = rv.resource_variables_enabled()
            vdef = kw.get("variable_def")
            if vdef is not None:
                if isinstance(vdef, bytes):
                    # lazy: keeps protobuf out of `import trainflow`
                    from trainflow._src.protos import variable_pb2
                    vdef = variable_pb2.VariableDef.FromString(vdef)
                use = vdef.is_resource
            target = rv.ResourceVariable if use else cls
            return super(_VariableMeta, target).__call__(**kw)
        for creator in list(stack):
            getter = make_getter(creator, getter)
        return getter(**arguments)


class Variable(metaclass=_VariableMeta):
    """A TF1 reference variable (`tf.Variable`).

    Args:
      initial_value: a Tensor or Python value, or a callable returning one (then its
        ops go under ``<name>/Initializer/`` and are colocated with the variable).
      trainable: add to TRAINABLE_VARIABLES too (default True unless ON_READ).
      collections: graph collections (default [GLOBAL_VARIABLES]).
      validate_shape: require the initial value's shape to be fully known.
      caching_device: device for the `read` snapshot.
      name: the name (default "Variable"; made unique).
      variable_def: a VariableDef proto to rebuild the Python object of an imported
        variable (mutually exclusive with initial_value).
      dtype: convert the initial value to this dtype.
      expected_shape: ignored (TF1 compatibility).
      import_scope: name scope prefix for `variable_def`.
      constraint: a projection applied by optimizers after updates.
      use_resource: True builds a ResourceVariable (default: whether
        `enable_resource_variables()` was called).
      synchronization, aggregation: distribution hints, recorded only.
      shape: static shape of the variable (default: the initial value's).

    Raises:
      ValueError: if initial_value is missing, or has no fully defined shape while
        validate_shape is True, or if both initial_value and variable_def are given.
    """

    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable=None, collections=None,
                 validate_shape=True, caching_device=None, name=None, variable_def=None,
                 dtype=None, expected_shape=None, import_scope=None, constraint=None,
                 use_resource=None, synchronization=None, aggregation=None, shape=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
        else:
            self._init_from_args(initial_value, trainable, collections, validate_shape,
                                 caching_device, name, dtype, constraint, synchronization,
                                 aggregation, shape)

    def _init_from_args(self, initial_value, trainable, collections, validate_shape,
                        caching_device, name, dtype, constraint, synchronization, aggregation,
                        shape):
        synchronization, aggregation, trainable, collections, dtype = _check_args(
            initial_value, trainable, collections, constraint, dtype, synchronization,
            aggregation, name)
        init_from_fn = callable(initial_value)
        graph = get_default_graph()
        with init_scope(graph), name_scope(name, "Variable",
                                           [] if init_from_fn else [initial_value]) as scope:
            if init_from_fn:
                # The initializer ops and the variable op are colocated, as in TF.
                with _colocation_attr_scope(graph, scope[:-1]):
                    with graph.name_scope("Initializer"), graph.device(None):
                        initial_value = initial_value()
                        self._initial_value = convert_to_tensor(
                            initial_value, name="initial_value", dtype=dtype)
                    self._variable = self._make_variable_op(shape, validate_shape, scope)
            else:
                self._initial_value = convert_to_tensor(initial_value, name="initial_value",
                                                        dtype=dtype)
                if self._initial_value.op._cond_context is not None:
                    raise ValueError(
                        f"Initializer for variable {scope[:-1]} is from inside a control-flow "
                        "construct, such as a loop or conditional. When creating a variable "
                        "inside a loop or conditional, use a lambda as the initializer.")
                self._variable = self._make_variable_op(shape, validate_shape, scope)
            if validate_shape and not self._initial_value.get_shape().is_fully_defined():
                raise ValueError(f"initial_value must have a shape specified: "
                                 f"{self._initial_value}")
            self._initializer_op = state_ops.assign(
                self._variable, self._initial_value, validate_shape=validate_shape).op
            if caching_device is not None:
                with graph.device(caching_device):
                    self._snapshot = identity.identity(self._variable, name="read")
            else:
                with graph.colocate_with(self._variable.op):
                    self._snapshot = identity.identity(self._variable, name="read")
        graph.add_to_collections(collections, self)
        self._trainable = trainable
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._caching_device = caching_device
        self._save_slice_info = None
        self._constraint = constraint

    def _make_variable_op(self, shape, validate_shape, name):
        if shape is None:
            shape = self._initial_value.get_shape() if validate_shape else unknown_shape()
        return state_ops.variable_op_v2(as_shape(shape), self._initial_value.dtype.base_dtype,
                                        name=name)

    def _init_from_proto(self, variable_def, import_scope=None):
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.protos import variable_pb2
        if isinstance(variable_def, bytes):
            variable_def = variable_pb2.VariableDef.FromString(variable_def)
        g = get_default_graph()
        element = lambda n: g.as_graph_element(prepend_name_scope(n, import_scope))  # noqa
        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._initial_value = (element(variable_def.initial_value_name)
                               if variable_def.initial_value_name else None)
        self._synchronization, self._aggregation, self._trainable = \
            validate_synchronization_aggregation_trainable(
                variable_def.synchronization, variable_def.aggregation, variable_def.trainable,
                variable_def.variable_name)
        self._snapshot = element(variable_def.snapshot_name)
        self._save_slice_info = None
        if variable_def.HasField("save_slice_info_def"):
            self._save_slice_info = Variable.SaveSliceInfo(
                save_slice_info_def=variable_def.save_slice_info_def, import_scope=import_scope)
        self._caching_device = None
        self._constraint = None

    # -- identity and static facts -------------------------------------------------------
    @property
    def name(self):
        """The name of the ref tensor, e.g. "v:0"."""
        return self._variable.name

    @property
    def _shared_name(self):
        return self.name[:self.name.index(":")]

    _unique_id = _shared_name

    @property
    def op(self):
        """The VariableV2 Operation."""
        return self._variable.op

    @property
    def graph(self):
        return self._variable.graph

    @property
    def device(self):
        return self._variable.device

    @property
    def dtype(self):
        """The ref dtype (e.g. float32_ref), as TF1 reports it."""
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.get_shape()

    def get_shape(self):
        """Alias of `shape`."""
        return self.shape

    def set_shape(self, shape):
        """Refines the static shape of the ref and of the snapshot."""
        self._ref().set_shape(shape)
        self.value().set_shape(shape)

    @property
    def initializer(self):
        """The Assign Operation that initializes the variable."""
        return self._initializer_op

    @property
    def initial_value(self):
        """The initial value Tensor."""
        return self._initial_value

    @property
    def constraint(self):
        return self._constraint

    @property
    def trainable(self):
        return self._trainable

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def _in_graph_mode(self):
        return True

    def __repr__(self):
        return (f"<tf.Variable '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}>")

    __str__ = __repr__

    def __hash__(self):
        return id(self)

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    # -- reading -------------------------------------------------------------------------
    def value(self):
        """The `v/read` snapshot tensor."""
        return self._snapshot

    _AsTensor = value

    def read_value(self):
        """A new Identity ("read") of the variable in the current name scope."""
        return identity.identity(self._variable, name="read")

    def _ref(self):
        """The ref tensor (the VariableV2 output)."""
        return self._variable

    def _as_graph_element(self):
        return self._variable

    def eval(self, session=None):
        """The variable's current value in `session` (default: the default session)."""
        return self._variable.eval(session=session)

    def initialized_value(self):
        """The variable's value once initialized, running the initial value otherwise
        (for initial values that depend on other variables)."""
        with init_scope():
            return cond.cond(state_ops.is_variable_initialized(self),
                                         self.read_value, lambda: self.initial_value)

    def load(self, value, session=None):
        """Writes `value` into the variable by running its initializer with the initial
        value fed.

        Raises:
          ValueError: without a session.
        """
        session = session or session_stack.get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session "
                             "should be established")
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- updates --------------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        """An Assign op; returns the ref (or the op if read_value is False)."""
        ref = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return ref if read_value else ref.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """An AssignAdd op; returns the ref (or the op if read_value is False)."""
        ref = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return ref if read_value else ref.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """An AssignSub op; returns the ref (or the op if read_value is False)."""
        ref = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return ref if read_value else ref.op

    def _scatter(self, fn, sparse_delta, use_locking, name):
        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return fn(self._variable, sparse_delta.indices, sparse_delta.values,
                  use_locking=use_locking, name=name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtracts IndexedSlices `sparse_delta` from the variable (ScatterSub)."""
        return self._scatter(state_ops.scatter_sub, sparse_delta, use_locking, name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Adds IndexedSlices `sparse_delta` to the variable (ScatterAdd)."""
        return self._scatter(state_ops.scatter_add, sparse_delta, use_locking, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """Multiplies rows by IndexedSlices `sparse_delta` (ScatterMul)."""
        return self._scatter(state_ops.scatter_mul, sparse_delta, use_locking, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """Divides rows by IndexedSlices `sparse_delta` (ScatterDiv)."""
        return self._scatter(state_ops.scatter_div, sparse_delta, use_locking, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Element-wise min of rows with IndexedSlices `sparse_delta` (ScatterMin)."""
        return self._scatter(state_ops.scatter_min, sparse_delta, use_locking, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Element-wise max of rows with IndexedSlices `sparse_delta` (ScatterMax)."""
        return self._scatter(state_ops.scatter_max, sparse_delta, use_locking, name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Writes IndexedSlices `sparse_delta` into the variable (ScatterUpdate)."""
        return self._scatter(state_ops.scatter_update, sparse_delta, use_locking, name)

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Writes IndexedSlices `sparse_delta` along the last axis of its indices, under
        their leading batch dimensions (`tf.batch_scatter_update`, one ScatterNdUpdate)."""
        # no IndexedSlices check here, as in TensorFlow (anything else fails on .indices)
        return batch_scatter.batch_scatter_update(self._variable, sparse_delta.indices,
                                                  sparse_delta.values,
                                                  use_locking=use_locking, name=name)

    def scatter_nd_sub(self, indices, updates, name=None):
        """ScatterNdSub on the variable."""
        return state_ops.scatter_nd_sub(self._variable, indices, updates, use_locking=True,
                                        name=name)

    def scatter_nd_add(self, indices, updates, name=None):
        """ScatterNdAdd on the variable."""
        return state_ops.scatter_nd_add(self._variable, indices, updates, use_locking=True,
                                        name=name)

    def scatter_nd_update(self, indices, updates, name=None):
        """ScatterNdUpdate on the variable."""
        return state_ops.scatter_nd_update(self._variable, indices, updates, use_locking=True,
                                           name=name)

    def count_up_to(self, limit):
        """A CountUpTo op on this (scalar integer) variable."""
        return state_ops.count_up_to(self._variable, limit=limit)

    # -- serialization ------------------------------------------------------------------------
    def to_proto(self, export_scope=None):
        """The VariableDef proto of this variable (None if outside `export_scope`)."""
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.protos import variable_pb2
        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        var_def = variable_pb2.VariableDef()
        var_def.variable_name = strip_name_scope(self._variable.name, export_scope)
        if self._initial_value is not None:
            var_def.initial_value_name = strip_name_scope(self._initial_value.name,
                                                          export_scope)
        var_def.trainable = self._trainable
        var_def.synchronization = self._synchronization.value
        var_def.aggregation = self._aggregation.value
        var_def.initializer_name = strip_name_scope(self._initializer_op.name, export_scope)
        var_def.snapshot_name = strip_name_scope(self._snapshot.name, export_scope)
        if self._save_slice_info:
            var_def.save_slice_info_def.MergeFrom(
                self._save_slice_info.to_proto(export_scope=export_scope))
        return var_def

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        """Rebuilds the Variable of an imported graph from its VariableDef."""
        return Variable(variable_def=variable_def, import_scope=import_scope)

    # -- partitions ----------------------------------------------------------------------------
    class SaveSliceInfo:
        """Where a partition lies in its full variable, for checkpoints.

        Attributes:
          full_name: the full variable's name (the checkpoint key).
          full_shape, var_offset, var_shape: lists of ints.
        """

        def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None,
                     save_slice_info_def=None, import_scope=None):
            if save_slice_info_def:
                self.full_name = prepend_name_scope(save_slice_info_def.full_name, import_scope)
                self.full_shape = list(save_slice_info_def.full_shape)
                self.var_offset = list(save_slice_info_def.var_offset)
                self.var_shape = list(save_slice_info_def.var_shape)
            else:
                self.full_name = full_name
                self.full_shape = full_shape
                self.var_offset = var_offset
                self.var_shape = var_shape

        @property
        def spec(self):
            """The checkpoint slice spec, e.g. "10 3 0,4:0,3"."""
            full = " ".join(str(d) for d in self.full_shape) + " "
            return full + ":".join(f"{o},{s}" for o, s in zip(self.var_offset, self.var_shape))

        def to_proto(self, export_scope=None):
            """The SaveSliceInfoDef proto (None if outside `export_scope`)."""
            # lazy: keeps protobuf out of `import trainflow`
            from trainflow._src.protos import variable_pb2
            if export_scope is not None and not self.full_name.startswith(export_scope):
                return None
            d = variable_pb2.SaveSliceInfoDef()
            d.full_name = strip_name_scope(self.full_name, export_scope)
            d.full_shape.extend(int(x) for x in self.full_shape)
            d.var_offset.extend(int(x) for x in self.var_offset)
            d.var_shape.extend(int(x) for x in self.var_shape)
            return d

    def _set_save_slice_info(self, save_slice_info):
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info


def _delegate(operator):
    def method(self, *args):
        return getattr(Tensor, operator)(self.value(), *args)
    method.__name__ = operator
    method.__doc__ = f"`{operator}` of the variable's value tensor."
    return method


# Operators act on the value (the `read` snapshot); Tensor's implementations are looked
# up at call time because math_ops installs them after this module loads.
for _operator in ("__neg__", "__abs__", "__invert__", "__add__", "__radd__", "__sub__",
                  "__rsub__", "__mul__", "__rmul__", "__div__", "__rdiv__", "__truediv__",
                  "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__",
                  "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__rand__", "__or__",
                  "__ror__", "__xor__", "__rxor__", "__getitem__", "__pow__", "__rpow__",
                  "__matmul__", "__rmatmul__"):
    setattr(Variable, _operator, _delegate(_operator))

RefVariable = Variable
VariableV1 = Variable


def _variable_to_tensor(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    return v._ref() if as_ref else v.value()


register_tensor_conversion_function(Variable, _variable_to_tensor)

from trainflow._src.ops.state.variable_helpers import *  # noqa: E402,F401,F403
from trainflow._src.ops.state.variable_helpers import __all__ as _helpers_all  # noqa: E402

__all__ = ["Variable", "VariableAggregation", "VariableSynchronization"] + _helpers_all
