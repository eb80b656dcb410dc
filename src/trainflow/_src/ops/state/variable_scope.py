"""`tf.variable_scope`, `tf.get_variable` and `VariableScope` (TF1 semantics).

Variable scopes name variables and carry defaults for `get_variable`: reuse,
initializer, regularizer, partitioner, custom getter, dtype, caching device and
constraint, inherited by nested scopes. Entering a scope also opens a name scope
for ops; re-entering a scope (by name or by its VariableScope object) gives ops a
new unique name scope (``scope_1/``) while variables keep ``scope/``, as in TF.
"""
import contextlib
import threading

from trainflow._src.ops.state import variables
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import _get_graph_from_inputs, get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
# slice_assign: `var[...]` slices that can be assigned to (StridedSliceAssign).
from trainflow._src.ops.state import slice_assign  # noqa: F401
from trainflow._src.ops.state.variable_store import (
    AUTO_REUSE, get_default_variable_store, graph_singleton)

__all__ = ["AUTO_REUSE", "VariableScope", "create_partitioned_variables", "get_local_variable",
           "get_variable", "get_variable_scope", "no_regularizer", "variable_creator_scope",
           "variable_op_scope", "variable_scope"]


_SCOPE_STORE_KEY = ("__varscope",)


def no_regularizer(_):
    """A regularizer that regularizes nothing (overrides a scope's regularizer)."""
    return None


class VariableScope:
    """The defaults `get_variable` uses inside a `variable_scope` (`tf.VariableScope`).

    Args:
      reuse: True, None (inherit / create) or AUTO_REUSE.
      name: the scope's full name ("" at the root).
      initializer, regularizer, caching_device, partitioner, custom_getter, dtype,
      use_resource, constraint: defaults for `get_variable`.
      name_scope: the name scope opened with this variable scope.
    """

    def __init__(self, reuse, name="", initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, name_scope="",
                 dtype=dtypes.float32, use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    constraint = property(lambda self: self._constraint)

    def __repr__(self):
        return f"<tf.VariableScope '{self._name}' reuse={self._reuse}>"

    def reuse_variables(self):
        """Makes `get_variable` in this scope reuse existing variables."""
        self._reuse = True

    def set_initializer(self, initializer):
        """Sets the scope's default initializer."""
        self._initializer = initializer

    def set_dtype(self, dtype):
        """Sets the scope's default dtype."""
        self._dtype = dtype

    def set_use_resource(self, use_resource):
        """Sets the scope's default use_resource flag for `get_variable`."""
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        """Sets the scope's default regularizer."""
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        """Sets the scope's default caching device."""
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        """Sets the scope's default partitioner."""
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        """Sets the scope's default custom getter."""
        self._custom_getter = custom_getter

    def get_collection(self, name):
        """Items of collection `name` whose names start with this scope."""
        scope = self._name + "/" if self._name else ""
        return get_default_graph().get_collection(name, scope)

    def trainable_variables(self):
        """This scope's trainable variables."""
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        """This scope's global variables."""
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        """This scope's local variables."""
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=None, aggregation=None):
        """`get_variable` in this scope: fills unset arguments from the scope.

        Raises:
          ValueError: if a constant initializer's dtype differs from `dtype`, and as
            `VariableStore.get_variable`.
        """
        regularizer = self._regularizer if regularizer is None else regularizer
        caching_device = self._caching_device if caching_device is None else caching_device
        partitioner = self._partitioner if partitioner is None else partitioner
        custom_getter = self._custom_getter if custom_getter is None else custom_getter
        reuse = self._reuse if reuse is None else reuse
        use_resource = self._use_resource if use_resource is None else use_resource
        full_name = self.name + "/" + name if self.name else name
        with name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtypes.as_dtype(dtype):
                    raise ValueError(f"Initializer type '{init_dtype}' and explicit dtype "
                                     f"'{dtypes.as_dtype(dtype)}' don't match.")
            initializer = self._initializer if initializer is None else initializer
            constraint = self._constraint if constraint is None else constraint
            dtype = self._dtype if dtype is None else dtype
            return var_store.get_variable(
                full_name, shape=shape, dtype=dtype, initializer=initializer,
                regularizer=regularizer, reuse=reuse, trainable=trainable,
                collections=collections, caching_device=caching_device, partitioner=partitioner,
                validate_shape=validate_shape, use_resource=use_resource,
                custom_getter=custom_getter, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation)

    def _get_partitioned_variable(self, var_store, name, shape=None, dtype=None,
                                  initializer=None, regularizer=None, trainable=None,
                                  collections=None, caching_device=None, partitioner=None,
                                  validate_shape=True, constraint=None, synchronization=None,
                                  aggregation=None):
        """The partitioned variable `name` (the scope's own name when `name` is empty)."""
        initializer = self._initializer if initializer is None else initializer
        regularizer = self._regularizer if regularizer is None else regularizer
        constraint = self._constraint if constraint is None else constraint
        caching_device = self._caching_device if caching_device is None else caching_device
        partitioner = self._partitioner if partitioner is None else partitioner
        dtype = self._dtype if dtype is None else dtype
        if self._custom_getter is not None:
            raise ValueError("Private access to _get_partitioned_variable is not allowed when "
                             "a custom getter is set.  Current custom getter: "
                             f"{self._custom_getter}.  It is likely that you're using "
                             "create_partitioned_variables.  If so, consider instead using "
                             "get_variable with a non-empty partitioner parameter instead.")
        if partitioner is None:
            raise ValueError("No partitioner was specified")
        full_name = "/".join(n for n in (self.name, name) if n)
        synchronization, aggregation, trainable = _variables().\
            validate_synchronization_aggregation_trainable(synchronization, aggregation,
                                                           trainable, full_name)
        with name_scope(None):
            return var_store._get_partitioned_variable(
                full_name, shape, dtype, initializer, regularizer, self.reuse, trainable,
                collections, caching_device, partitioner, validate_shape, constraint,
                synchronization, aggregation)


def _variables():
    return variables


class _VariableScopeStore(threading.local):
    """The current VariableScope and use counts of scope names (per graph, per thread)."""

    def __init__(self):
        self.current_scope = VariableScope(False)
        self.variable_scopes_count = {}

    def open_variable_scope(self, scope_name):
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name,
                                                                                0) + 1

    def close_variable_subscopes(self, scope_name):
        prefix = scope_name + "/"
        for k in self.variable_scopes_count:
            if k.startswith(prefix):
                self.variable_scopes_count[k] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


def get_variable_scope_store():
    """The _VariableScopeStore of the default graph."""
    return graph_singleton(_SCOPE_STORE_KEY, _VariableScopeStore)


def get_variable_scope():
    """The current VariableScope (`tf.get_variable_scope`)."""
    return get_variable_scope_store().current_scope


def _unique_variable_scope(prefix):
    store = get_variable_scope_store()
    current = store.current_scope
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(f"{name}_{idx}") > 0:
        idx += 1
    return f"{prefix}_{idx}"


def _wrap_custom_getter(custom_getter, old_getter):
    """A getter calling `custom_getter` with a getter that runs `old_getter` first."""
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(lambda *a, **kw: old_getter(getter, *a, **kw), *args, **kwargs)
    return wrapped


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=None, aggregation=None):
    """Gets an existing variable or creates a new one (`tf.get_variable`).

    The full name is the current variable scope's name plus `name`; name scopes
    don't count. Without an initializer, float variables get Glorot uniform and
    integer/bool/string variables zeros.

    Args:
      name: the variable's name within the current variable scope.
      shape: the shape (must be omitted when `initializer` is a value).
      dtype: default the scope's dtype (float32).
      initializer: an initializer, a Tensor, or a Python/NumPy value.
      regularizer: fn(variable) -> loss tensor, added to REGULARIZATION_LOSSES.
      trainable, collections, caching_device, validate_shape, constraint,
      synchronization, aggregation: as for `tf.Variable`.
      partitioner: fn(shape=, dtype=) -> partitions; gives a PartitionedVariable.
      use_resource: True makes a ResourceVariable (default: the scope's flag, else
        whether `enable_resource_variables()` was called).
      custom_getter: fn(getter, name, *args, **kwargs) wrapping the creation.

    Returns:
      the Variable (or PartitionedVariable).

    Raises:
      ValueError: when creating an existing variable without reuse, reusing a missing
        one, or on shape/dtype mismatches and invalid initializers.
    """
    return get_variable_scope().get_variable(
        get_default_variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        regularizer=regularizer, trainable=trainable, collections=collections,
        caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
        use_resource=use_resource, custom_getter=custom_getter, constraint=constraint,
        synchronization=synchronization, aggregation=aggregation)


def variable(initial_value=None, trainable=None, collections=None, validate_shape=True,
             caching_device=None, name=None, dtype=None, constraint=None, use_resource=None,
             synchronization=None, aggregation=None):
    """Creates a `tf.Variable` (TF's `variable_scope.variable`, used by library code)."""
    return _variables().Variable(
        initial_value=initial_value, trainable=trainable, collections=collections,
        validate_shape=validate_shape, caching_device=caching_device, name=name, dtype=dtype,
        constraint=constraint, use_resource=use_resource, synchronization=synchronization,
        aggregation=aggregation)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, caching_device=None,
                       partitioner=None, validate_shape=True, use_resource=None,
                       custom_getter=None, constraint=None, synchronization=None,
                       aggregation=None):
    """`get_variable` for a non-trainable variable in LOCAL_VARIABLES."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=trainable, collections=collections,
                        caching_device=caching_device, partitioner=partitioner,
                        validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint,
                        synchronization=synchronization, aggregation=aggregation)


def _get_partitioned_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                              trainable=True, collections=None, caching_device=None,
                              partitioner=None, validate_shape=True, use_resource=None,
                              constraint=None, synchronization=None, aggregation=None):
    """A PartitionedVariable in the current scope (used by create_partitioned_variables)."""
    return get_variable_scope()._get_partitioned_variable(
        get_default_variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        regularizer=regularizer, trainable=trainable, collections=collections,
        caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
        constraint=constraint, synchronization=synchronization, aggregation=aggregation)


class _PureVariableScope:
    """Makes a VariableScope current without touching name scopes."""

    _SETTERS = ("initializer", "regularizer", "caching_device", "partitioner", "dtype",
                "use_resource")

    def __init__(self, name_or_scope, reuse=None, old_name_scope=None, constraint=None,
                 **overrides):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._old_name_scope = old_name_scope
        self._constraint = constraint
        self._overrides = overrides
        self._store = get_variable_scope_store()
        self._last = None

    def _make_scope(self, base, name, reuse, name_scope_str):
        scope = VariableScope(reuse, name=name, initializer=base.initializer,
                              regularizer=base.regularizer, caching_device=base.caching_device,
                              partitioner=base.partitioner, dtype=base.dtype,
                              use_resource=base.use_resource, custom_getter=base.custom_getter,
                              name_scope=name_scope_str, constraint=self._constraint)
        for key in self._SETTERS:
            value = self._overrides.get(key)
            if value is not None:
                getattr(scope, "set_" + key)(value)
        getter = self._overrides.get("custom_getter")
        if getter is not None:
            scope.set_custom_getter(_wrap_custom_getter(getter, base.custom_getter))
        return scope

    def __enter__(self):
        store = self._store
        self._old = store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            src = self._name_or_scope
            self._new_name = src.name
            store.open_variable_scope(self._new_name)
            self._old_counts = dict(store.variable_scopes_count)
            scope = self._make_scope(src, src.name, self._reuse or src.reuse,
                                     src.original_name_scope)
        else:
            old = self._old
            self._new_name = (old.name + "/" + self._name_or_scope if old.name
                              else self._name_or_scope)
            reuse = self._reuse or old.reuse
            name_scope_str = (self._name_or_scope if self._old_name_scope is None
                              else self._old_name_scope)
            scope = self._make_scope(old, self._new_name, reuse, name_scope_str)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        self._last = scope
        return scope

    def __exit__(self, *exc):
        store = self._store
        if store.current_scope is not self._last:
            raise RuntimeError("Improper nesting of variable_scope.")
        if isinstance(self._name_or_scope, VariableScope):
            store.variable_scopes_count = self._old_counts
        else:
            store.close_variable_subscopes(self._new_name)
        store.current_scope = self._old
        return False


class variable_scope:  # noqa: N801 - TF's name
    """Context manager opening a variable scope (and a name scope) (`tf.variable_scope`).

    Args:
      name_or_scope: a name or a VariableScope to (re-)enter.
      default_name: used, made unique, when name_or_scope is None.
      values: tensors whose graph to use.
      initializer, regularizer, caching_device, partitioner, custom_getter, dtype,
      use_resource, constraint: defaults for `get_variable` in the scope.
      reuse: True, None or AUTO_REUSE (False means None: reuse is inherited).
      auxiliary_name_scope: open a name scope too (False re-enters the current one).

    Raises:
      TypeError / ValueError: for bad arguments, e.g. reuse=True without a name.
    """

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None,
                 regularizer=None, caching_device=None, partitioner=None, custom_getter=None,
                 reuse=None, dtype=None, use_resource=None, constraint=None,
                 auxiliary_name_scope=True):
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:
            reuse = None  # False does not stop inheriting reuse from an outer scope
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get "
                            f"{auxiliary_name_scope}")
        if name_or_scope is not None and not isinstance(name_or_scope, (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._reuse = reuse
        self._aux = auxiliary_name_scope
        self._overrides = dict(initializer=initializer, regularizer=regularizer,
                               caching_device=caching_device, partitioner=partitioner,
                               custom_getter=custom_getter, dtype=dtype,
                               use_resource=use_resource)
        self._constraint = constraint
        self._graph = _get_graph_from_inputs(values or [])
        self._stack = None

    def __enter__(self):
        stack = contextlib.ExitStack()
        stack.enter_context(self._graph.as_default())
        try:
            scope = self._enter(stack)
        except BaseException:
            stack.close()
            raise
        self._stack = stack
        return scope

    def _enter(self, stack):
        if self._aux:
            current_ns = None
        else:
            ns = self._graph.get_name_scope()
            current_ns = name_scope(ns + "/" if ns else ns)
        if self._name_or_scope is not None:
            if isinstance(self._name_or_scope, str):
                ns_name = self._name_or_scope
            else:
                ns_name = self._name_or_scope.name.split("/")[-1]
            old_ns = None
            if ns_name or current_ns:
                entered = stack.enter_context(current_ns or name_scope(ns_name))
                old_ns = entered if isinstance(self._name_or_scope, str) else \
                    self._name_or_scope.original_name_scope
            pure = _PureVariableScope(self._name_or_scope, reuse=self._reuse,
                                      old_name_scope=old_ns, constraint=self._constraint,
                                      **self._overrides)
            return stack.enter_context(pure)
        if self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        entered = stack.enter_context(current_ns or name_scope(self._default_name))
        unique = _unique_variable_scope(self._default_name)
        pure = _PureVariableScope(unique, old_name_scope=entered, constraint=self._constraint,
                                  **self._overrides)
        return stack.enter_context(pure)

    def __exit__(self, *exc):
        stack, self._stack = self._stack, None
        return stack.__exit__(*exc)


def variable_op_scope(values, name_or_scope, default_name=None, initializer=None,
                      regularizer=None, caching_device=None, partitioner=None,
                      custom_getter=None, reuse=None, dtype=None, use_resource=None,
                      constraint=None):
    """Deprecated: `variable_scope(name_or_scope, default_name, values, ...)`."""
    return variable_scope(name_or_scope, default_name=default_name, values=values,
                          initializer=initializer, regularizer=regularizer,
                          caching_device=caching_device, partitioner=partitioner,
                          custom_getter=custom_getter, reuse=reuse, dtype=dtype,
                          use_resource=use_resource, constraint=constraint)


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Routes `tf.Variable(...)` through `variable_creator(next_creator, **kwargs)`
    while the scope is open (`tf.variable_creator_scope`)."""
    stack = get_default_graph()._variable_creator_stack
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.remove(variable_creator)


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32,
                                 trainable=True, collections=None, name=None, reuse=None):
    """Deprecated: the parts of a variable partitioned by the list `slicing`.

    Returns:
      the list of part Variables.

    Raises:
      ValueError: if `slicing` doesn't match `shape`'s rank or `shape` is scalar.
    """
    if len(shape) != len(slicing):
        raise ValueError(f"The 'shape' and 'slicing' of a partitioned Variable must have the "
                         f"length: shape: {shape}, slicing: {slicing}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    with variable_scope(name, "PartitionedVariable", reuse=reuse):
        var = _get_partitioned_variable(
            name=None, shape=shape, dtype=dtype, initializer=initializer, trainable=trainable,
            partitioner=lambda **unused: slicing, collections=collections)
    return list(var)
