"""Partitioned variables of TF1: `PartitionedVariable`, the partitioners
(`tf.fixed_size_partitioner`, ...) and the slicing rules `get_variable` uses.

A variable `name` of shape [10, 3] split in 3 along axis 0 is three variables
`name/part_0..2` of shapes [4,3], [3,3], [3,3] (the first `10 % 3` parts take one
extra row), each with a SaveSliceInfo naming `name`, the full shape and its offset,
so checkpoints store one tensor `name`, as TF's do.
"""
import math

from trainflow._src.ops.array import identity, join
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import register_tensor_conversion_function
from trainflow._src.framework.tensor_shape import TensorShape, as_shape, dimension_value

__all__ = ["fixed_size_partitioner", "min_max_variable_partitioner",
           "variable_axis_size_partitioner"]


class PartitionInfo:
    """Where one partition sits in its full variable (passed to initializers).

    Args:
      full_shape: the full variable's shape (list of ints).
      var_offset: the partition's offset in each dimension.

    Raises:
      TypeError / ValueError: for malformed arguments.
    """

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError(f"`full_shape` must be a sequence (like tuple or list) instead of "
                            f"{type(full_shape).__name__}")
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError(f"`var_offset` must be a sequence (like tuple or list) instead of "
                            f"{type(var_offset).__name__}")
        if len(var_offset) != len(full_shape):
            raise ValueError(f"Expected equal length, but `var_offset` is of length "
                             f"{len(var_offset)} while full_shape is of length "
                             f"{len(full_shape)}.")
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, "
                                 f"shape={size} for var_offset={var_offset}, "
                                 f"full_shape={full_shape}")
        self._full_shape = list(full_shape)
        self._var_offset = list(var_offset)

    @property
    def full_shape(self):
        return self._full_shape

    @property
    def var_offset(self):
        return self._var_offset

    def single_offset(self, shape):
        """The offset along the partitioned dimension of a part of `shape`."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self._var_offset[dim]

    def single_slice_dim(self, shape):
        """The one dimension along which a part of `shape` is cut (None if none).

        Raises:
          ValueError: if it is cut along several dimensions or doesn't fit.
        """
        shape = list(shape)
        if len(shape) != len(self._full_shape):
            raise ValueError(f"Expected equal length, but received shape={shape} of length "
                             f"{len(shape)} while self.full_shape={self._full_shape} is of "
                             f"length {len(self._full_shape)}.")
        for i, (offset, size) in enumerate(zip(self._var_offset, shape)):
            if offset + size > self._full_shape[i]:
                raise ValueError(f"With self.var_offset={self._var_offset}, a partition of "
                                 f"shape={shape} would exceed self.full_shape="
                                 f"{self._full_shape} in dimension {i}.")
        dims = [i for i, (s, f) in enumerate(zip(shape, self._full_shape)) if s != f]
        if len(dims) > 1:
            raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and "
                             f"self.full_shape={self._full_shape} since slice dim could be "
                             f"one of {dims}")
        return dims[0] if dims else None


def call_partitioner(partitioner, shape, dtype):
    """Runs `partitioner(shape=, dtype=)` and checks its answer; returns the list.

    Raises:
      ValueError: for a shape that is not fully defined or scalar, or a bad answer.
    """
    if not shape.is_fully_defined():
        raise ValueError("Shape of a new partitioned variable must be fully defined, but "
                         f"instead was {shape}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, (list, tuple)):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError("Partitioner returned a partition list that does not match the "
                         f"Variable's rank: {slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError("Can only slice a variable along one dimension: shape: "
                         f"{shape}, partitioning: {slicing}")
    return list(slicing)


def slice_dim_and_num_slices(slicing):
    """(axis, number of parts) of a partition list ((0, 1) when nothing is cut)."""
    for dim, num in enumerate(slicing):
        if num > 1:
            return dim, num
    return 0, 1


def iter_slices(full_shape, num_slices, slice_dim):
    """Yields (offset, shape) of each part; the first `size % num` parts are one larger."""
    excess = full_shape[slice_dim] % num_slices
    base = full_shape[slice_dim] // num_slices
    offset = [0] * len(full_shape)
    for i in range(num_slices):
        shape = list(full_shape)
        shape[slice_dim] = base + (1 if i < excess else 0)
        yield list(offset), shape
        offset[slice_dim] += shape[slice_dim]


class PartitionedVariable:
    """A variable stored as several Variables cut along one axis.

    Iterating gives the parts in offset order; converting to a tensor concatenates
    them (`as_tensor`).

    Raises:
      TypeError / ValueError: for inconsistent parts or partitions.
    """

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        shape = as_shape(shape)
        for v in variable_list:
            info = v._get_save_slice_info()
            if info is None:
                raise ValueError("All variables must have a save_slice_info available: "
                                 f"{[x.name for x in variable_list]}")
            if len(shape) != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if list(info.full_shape) != shape.as_list():
                raise ValueError(f"All variables' full shapes must match shape: {shape}; but "
                                 f"full shapes were: {info.full_shape}")
        self._variable_list = sorted(variable_list,
                                     key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtypes.as_dtype(dtype)
        self._partitions = list(partitions)
        self._as_tensor = None

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length for {len(axes)} > 1 partition axes")
        return len(self._variable_list)

    def __repr__(self):
        return (f"<tf.PartitionedVariable '{self._name}' shape={self._shape} "
                f"dtype={self._dtype.name} partitions={self._partitions}>")

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        if len(self._variable_list) == 1:
            with name_scope(None):
                return identity.identity(self._variable_list[0], name=self._name)
        axis = self._partition_axes()[0]
        with name_scope(self._name + "/ConcatPartitions/"):
            concatenated = join.concat(self._variable_list, axis)
        with name_scope(None):
            return identity.identity(concatenated, name=self._name)

    def as_tensor(self):
        """The full value: the parts concatenated along the partition axis."""
        with get_default_graph().control_dependencies(None):
            return self._concat()

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        """The full shape."""
        return self._shape

    @property
    def graph(self):
        return self._variable_list[0].graph

    def _get_variable_list(self):
        return self._variable_list

    get_variable_list = _get_variable_list

    def _get_partitions(self):
        return self._partitions

    def _apply_assign_fn(self, assign_fn, value):
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError(f"Expected {len(self._variable_list)} values, one per part, "
                                 f"got {len(value)}")
            values = value
        elif isinstance(value, PartitionedVariable):
            values = list(value)
        else:
            axis = self._partition_axes()[0]
            sizes = [dimension_value(v.shape[axis]) for v in self._variable_list]
            values = join.split(value, sizes, axis=axis)
        return [assign_fn(var, values[i]) for i, var in enumerate(self._variable_list)]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns each part its slice of `value`; returns the list of results."""
        return self._apply_assign_fn(
            lambda v, x: v.assign(x, use_locking=use_locking, name=name,
                                  read_value=read_value), value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True):
        """Adds each slice of `value` to its part; returns the list of results."""
        return self._apply_assign_fn(
            lambda v, x: v.assign_add(x, use_locking=use_locking, name=name,
                                      read_value=read_value), value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True):
        """Subtracts each slice of `value` from its part; returns the list of results."""
        return self._apply_assign_fn(
            lambda v, x: v.assign_sub(x, use_locking=use_locking, name=name,
                                      read_value=read_value), value)


def _partitioned_to_tensor(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    if as_ref:
        raise TypeError("PartitionedVariable doesn't support being used as a reference.")
    return v.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _partitioned_to_tensor)


def _element_size(dtype, bytes_per_string_element):
    return bytes_per_string_element if dtype.base_dtype == dtypes.string else dtype.size


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """A partitioner keeping each shard under `max_shard_bytes` (at least one slice of
    `axis` per shard; at most `max_shards` shards).

    Raises:
      ValueError: for non-positive sizes.
    """
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive. "
                         f"Currently, max_shard_bytes is {max_shard_bytes} and "
                         f"bytes_per_string_element is {bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        if not isinstance(dtype, dtypes.DType):
            raise ValueError(f"dtype is not a DType: {dtype}")
        partitions = [1] * shape.ndims
        axis_size = shape.as_list()[axis]
        bytes_per_slice = 1.0 * (shape.num_elements() / axis_size) * \
            _element_size(dtype, bytes_per_string_element)
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * axis_size / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """A partitioner making shards of at least `min_slice_size` bytes, at most
    `max_partitions` of them.

    Raises:
      ValueError: for a negative axis.
    """
    if axis < 0:
        raise ValueError("axis must be >= 0")

    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(f"Can not partition variable along axis {axis} when shape is "
                             f"only {shape}")
        total = shape.num_elements() * _element_size(dtype, bytes_per_string_element)
        partitions = [1] * len(shape)
        partitions[axis] = max(1, min(shape.as_list()[axis], max_partitions,
                                      int(math.ceil(total / min_slice_size))))
        return partitions

    return _partitioner


def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner cutting `axis` into `num_shards` parts (fewer if the axis is shorter)."""
    def _partitioner(shape, **unused_args):
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, shape.as_list()[axis])
        return partitions
    return _partitioner
