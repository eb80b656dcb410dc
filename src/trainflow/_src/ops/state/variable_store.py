"""The per-graph store behind `tf.get_variable`: creates or reuses variables by full
name, with TF1's reuse rules, default initializers, regularizers, custom getters and
partitioning."""
import functools
import inspect

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import as_shape
from trainflow._src.ops.state import init_ops
from trainflow._src.ops.state import partitioned_variables as pv
from trainflow._src.ops.state import variables
from trainflow._src.ops.array import slicing

_STORE_KEY = ("__variable_store",)


class _ReuseMode:
    """The type of `tf.AUTO_REUSE`: create variables that don't exist, reuse the rest."""

    def __repr__(self):
        return "AUTO_REUSE"


AUTO_REUSE = _ReuseMode()


def _format_traceback(frames):
    return "".join(f'  File "{f}", line {line}, in {fn}\n' for f, line, fn in frames)


def _accepts(fn, name):
    """True if callable `fn` takes a parameter `name` (or **kwargs)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _needs_no_arguments(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not inspect.Parameter.empty or
               p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
               for p in params)


def default_initializer(name, dtype):
    """(initializer, initializing_from_value) for a variable without one: Glorot
    uniform for floats, zeros for integers, bools and strings.

    Raises:
      ValueError: for other dtypes (complex), which need an explicit initializer.
    """
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer(), False
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
        return init_ops.zeros_initializer(), False
    raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")


class VariableStore:
    """Variables created by `get_variable`, by full name (one store per graph).

    Attributes:
      _vars: name -> Variable.
      _partitioned_vars: name -> PartitionedVariable.
    """

    def __init__(self):
        self._vars = {}
        self._partitioned_vars = {}
        self._store_eager_variables = False

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=None, aggregation=None):
        """Gets or creates the variable `name` (arguments as `tf.get_variable`).

        Raises:
          ValueError: for reuse violations, shape or dtype mismatches, bad initializers.
        """
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        dtype = getattr(dtype, "base_dtype", dtype)

        def true_getter(name, shape=None, dtype=dtypes.float32, initializer=None,
                        regularizer=None, reuse=None, trainable=None, collections=None,
                        caching_device=None, partitioner=None, validate_shape=True,
                        use_resource=None, constraint=None, synchronization=None,
                        aggregation=None):
            is_scalar = isinstance(shape, (list, tuple)) and not shape
            if partitioner is not None and not is_scalar:
                if not callable(partitioner):
                    raise ValueError(f"Partitioner must be callable, but received: "
                                     f"{partitioner}")
                with name_scope(None):
                    return self._get_partitioned_variable(
                        name, shape, dtype, initializer, regularizer, reuse, trainable,
                        collections, caching_device, partitioner, validate_shape,
                        constraint, synchronization, aggregation, use_resource=use_resource)
            if reuse is True and partitioner is None and name in self._partitioned_vars:
                return self._get_partitioned_variable(
                    name, shape, dtype, initializer, regularizer, reuse, trainable,
                    collections, caching_device, None, validate_shape, constraint,
                    synchronization, aggregation, use_resource=use_resource)
            if f"{name}/part_0" in self._vars:
                raise ValueError("No partitioner was provided, but a partitioned version of "
                                 f"the variable was found: {name}/part_0. Perhaps a variable "
                                 "of the same name was already created with partitioning?")
            return self._get_single_variable(
                name, shape, dtype, initializer, regularizer, None, reuse, trainable,
                collections, caching_device, validate_shape, constraint, synchronization,
                aggregation, use_resource=use_resource)

        synchronization, aggregation, trainable = \
            variables.validate_synchronization_aggregation_trainable(
                synchronization, aggregation, trainable, name)
        kwargs = dict(name=name, shape=shape, dtype=dtype, initializer=initializer,
                      regularizer=regularizer, reuse=reuse, trainable=trainable,
                      collections=collections, caching_device=caching_device,
                      partitioner=partitioner, validate_shape=validate_shape,
                      use_resource=use_resource, synchronization=synchronization,
                      aggregation=aggregation)
        if custom_getter is None:
            return true_getter(constraint=constraint, **kwargs)
        if _accepts(custom_getter, "constraint"):
            kwargs["constraint"] = constraint
        return custom_getter(getter=true_getter, **kwargs)

    def _get_partitioned_variable(self, name, shape, dtype, initializer, regularizer, reuse,
                                  trainable, collections, caching_device, partitioner,
                                  validate_shape, constraint, synchronization, aggregation,
                                  use_resource=None):
        initializing_from_value = isinstance(initializer, Tensor)
        if name in self._vars:
            raise ValueError("A partitioner was provided, but an unpartitioned version of the "
                             f"variable was found: {name}.  Perhaps a variable of the same "
                             "name was already created without partitioning?")
        shape = as_shape(shape)
        if initializing_from_value:
            shape = shape.merge_with(initializer.get_shape())
        dtype = dtypes.as_dtype(dtype)
        partitions = None
        if not reuse or partitioner:
            partitions = pv.call_partitioner(partitioner, shape, dtype)
        if name in self._partitioned_vars:
            return self._reuse_partitioned(name, shape, dtype, reuse, partitions)
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created "
                             "with tf.get_variable(). Did you mean to set reuse=False or "
                             "reuse=tf.AUTO_REUSE in VarScope?")
        slice_dim, num_slices = pv.slice_dim_and_num_slices(partitions)
        if f"{name}/part_0" in self._vars:
            if f"{name}/part_{num_slices - 1}" not in self._vars:
                raise ValueError(f"Partitioner returned a different partitioning than what was "
                                 f"already found.  Partitioner returned {num_slices} shards, "
                                 f"and shard {name}/part_0 was found, but "
                                 f"{name}/part_{num_slices - 1} was not.")
            if f"{name}/part_{num_slices}" in self._vars:
                raise ValueError(f"Partitioner returned a different partitioning than what was "
                                 f"already found.  Partitioner returned {num_slices} shards, "
                                 f"and shard {name}/part_0 was found, but so was the extra "
                                 f"shard {name}/part_{num_slices}.")
        parts = []
        full_shape = shape.as_list()
        for i, (offset, part_shape) in enumerate(pv.iter_slices(full_shape, num_slices,
                                                                slice_dim)):
            info = pv.PartitionInfo(full_shape=full_shape, var_offset=offset)
            part_name = f"{name}/part_{i}"
            with name_scope(part_name + "/PartitionedInitializer"):
                init, init_shape, dtype = self._part_initializer(
                    name, initializer, dtype, offset, part_shape)
            with name_scope(None):
                var = self._get_single_variable(
                    part_name, init_shape, dtype, init, regularizer, info, reuse, trainable,
                    collections, caching_device, validate_shape, constraint, synchronization,
                    aggregation, use_resource=use_resource)
            var._set_save_slice_info(
                variables.Variable.SaveSliceInfo(name, full_shape, offset, part_shape))
            parts.append(var)
        result = pv.PartitionedVariable(name=name, shape=shape, dtype=dtype,
                                        variable_list=parts, partitions=partitions)
        self._partitioned_vars[name] = result
        return result

    def _part_initializer(self, name, initializer, dtype, offset, part_shape):
        """(initializer, shape to pass, dtype) for one part of a partitioned variable."""
        if initializer is None:
            init, from_value = default_initializer(name, dtype)
            return init, None if from_value else part_shape, dtype
        if callable(initializer):
            return initializer, part_shape, dtype
        if isinstance(initializer, Tensor):
            init = slicing.slice(initializer, offset, part_shape)
            return init, None, init.dtype.base_dtype
        init = convert_to_tensor(initializer, dtype=dtype)
        return slicing.slice(init, offset, part_shape), None, dtype

    def _reuse_partitioned(self, name, shape, dtype, reuse, partitions):
        if reuse is False:
            raise ValueError(f"Partitioned variable with name {name} already exists. Did you "
                             "mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
        existing = self._partitioned_vars[name]
        if not shape.is_compatible_with(existing.get_shape()):
            raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                             f"shape {shape} and found shape {existing.get_shape()}.")
        if not dtype.is_compatible_with(existing.dtype):
            raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                             f"dtype {dtype.name} and found dtype {existing.dtype.name}.")
        if partitions is not None and existing._get_partitions() != partitions:
            raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                             f"partitions {partitions} and found partitions "
                             f"{existing._get_partitions()}.")
        return existing

    def _get_single_variable(self, name, shape, dtype, initializer, regularizer,
                             partition_info, reuse, trainable, collections, caching_device,
                             validate_shape, constraint, synchronization, aggregation,
                             use_resource=None):
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        if shape is not None:
            shape = as_shape(shape)
        if name in self._vars:
            return self._reuse_single(name, shape, dtype, reuse)
        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                             "VarScope?")
        if initializer is None:
            if shape is None:
                raise ValueError(f"Variable {name} did not get an initializer, so its `shape` "
                                 "argument must be specified.")
            initializer, initializing_from_value = default_initializer(name, dtype)
        if initializing_from_value:
            init_val, variable_dtype = initializer, None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape is not None and shape.is_fully_defined():
                extra = {"partition_info": partition_info} \
                    if _accepts_named(initializer, "partition_info") else {}
                init_val = functools.partial(initializer, shape.as_list(), dtype=dtype, **extra)
                variable_dtype = dtype.base_dtype
            elif _needs_no_arguments(initializer):
                init_val, variable_dtype = initializer, None
            else:
                raise ValueError("The initializer passed is not valid. It should be a callable "
                                 "with no arguments and the shape should not be provided or "
                                 "an instance of `tf.keras.initializers.*' and `shape` should "
                                 "be fully defined.")
        v = variables.Variable(initial_value=init_val, name=name, trainable=trainable,
                               collections=collections, caching_device=caching_device,
                               dtype=variable_dtype, validate_shape=validate_shape,
                               constraint=constraint, synchronization=synchronization,
                               aggregation=aggregation, use_resource=use_resource)
        self._vars[name] = v
        if regularizer:
            graph = get_default_graph()
            with graph.colocate_with(v.op), name_scope(name + "/Regularizer/"), \
                    variables.init_scope():
                loss = regularizer(v)
            if loss is not None:
                graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v

    def _reuse_single(self, name, shape, dtype, reuse):
        found = self._vars[name]
        if reuse is False:
            raise ValueError(f"Variable {name} already exists, disallowed. Did you mean to set "
                             "reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally "
                             f"defined at:\n\n{_format_traceback(found.op.traceback)}")
        if shape is not None and not shape.is_compatible_with(found.get_shape()):
            raise ValueError(f"Trying to share variable {name}, but specified shape {shape} "
                             f"and found shape {found.get_shape()}.")
        if not dtype.is_compatible_with(found.dtype):
            raise ValueError(f"Trying to share variable {name}, but specified dtype "
                             f"{dtype.name} and found dtype {found.dtype.name}.")
        return found


def _accepts_named(fn, name):
    """True if `fn` has a parameter literally called `name` (not just **kwargs)."""
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def graph_singleton(key, make):
    """The one object kept in the default graph's collection `key`: made by `make()` and
    stored there on first use."""
    graph = get_default_graph()
    existing = graph.get_collection(key)
    if existing:
        return existing[0]
    obj = make()
    graph.add_to_collection(key, obj)
    return obj


def get_default_variable_store():
    """The VariableStore of the default graph (created on first use)."""
    return graph_singleton(_STORE_KEY, VariableStore)
