"""TensorFlow's lookup-table ops: HashTableV2, MutableHashTableV2,
MutableHashTableOfTensorsV2, MutableDenseHashTableV2 (the table handles), and
LookupTableFindV2 / InsertV2 / RemoveV2 / SizeV2 / ExportV2 / ImportV2,
InitializeTableV2 and InitializeTableFromTextFileV2 over the resources of `table_impl`.

A table op outputs a 0-d object array holding its table as the `resource` handle value;
the table lives in the session's resource manager under its shared_name (or op name).
"""
import itertools

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.ops.lookup import table_impl, text_file_init

_unique_ids = itertools.count()
_TABLE_ATTRS = ["container: string = ''", "shared_name: string = ''",
                "use_node_name_sharing: bool = false", "key_dtype: type", "value_dtype: type"]


def _display_name(ctx):
    shared = ctx.op._attrs.get("shared_name")
    if shared:
        return shared.decode() if isinstance(shared, bytes) else shared
    return f"_{next(_unique_ids)}_{ctx.op.name}"


def _np(t):
    return t.as_numpy_dtype


# The (key, value) dtypes TF registers HashTable kernels for.
_HASH_TABLE_TYPES = {("int32", "float64"), ("int32", "float32"), ("int32", "int32"),
                     ("int32", "string"), ("int64", "float64"), ("int64", "float32"),
                     ("int64", "int32"), ("int64", "int64"), ("int64", "string"),
                     ("int64", "variant"), ("string", "bool"), ("string", "float64"),
                     ("string", "float32"), ("string", "int32"), ("string", "int64"),
                     ("string", "string")}


def _hash_table(name, attrs, inputs):
    pair = (attrs["key_dtype"].name, attrs["value_dtype"].name)
    if pair not in _HASH_TABLE_TYPES:
        raise errors.InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op 'HashTableV2' with these "
                        f"attrs: key_dtype={pair[0]}, value_dtype={pair[1]}")
    return table_impl.HashTableResource(name, _np(attrs["key_dtype"]),
                                        _np(attrs["value_dtype"]))


def _mutable(name, attrs, inputs):
    shape = attrs.get("value_shape")
    shape = () if shape is None else tuple(shape.as_list())
    if len(shape) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"Default value must be a vector, got shape {table_impl._fmt(shape)}")
    return table_impl.TableResource(name, _np(attrs["key_dtype"]), _np(attrs["value_dtype"]),
                                    shape)


def _dense(name, attrs, inputs):
    table = table_impl.DenseTableResource(
        name, _np(attrs["key_dtype"]), _np(attrs["value_dtype"]),
        tuple(attrs["value_shape"].as_list()), inputs[0], inputs[1])
    table.kind = "MutableDenseHashTable"
    return table


def _handle_kernel(factory):
    def kernel(*inputs, ctx):
        table = ctx.state.get("table")
        if table is not None and ctx.resources.lookup("table", ctx.resource_name) is table:
            return ctx.state["handle"]
        attrs = ctx.op._attrs
        make = lambda: factory(_display_name(ctx), attrs, inputs)  # noqa: E731
        table = ctx.resources.lookup_or_create("table", ctx.resource_name, make)
        want = factory(table.name, attrs, inputs).spec()
        if table.spec() != want:
            raise errors.InvalidArgumentError(
                None, None, f"Shared table '{ctx.resource_name}' has signature "
                            f"{table.spec()} but the requested one is {want}")
        ctx.state["table"] = table
        handle = ctx.state["handle"] = np.empty((), dtype=object)
        handle[()] = table
        handle.flags.writeable = False
        return handle
    return kernel


def _scalar(op):
    return [TensorShape(())]


register_op("HashTableV2", outputs=["table_handle: resource"], attrs=_TABLE_ATTRS,
            shape_fn=_scalar, kernel=_handle_kernel(_hash_table), stateful=True)
register_op("MutableHashTableV2", outputs=["table_handle: resource"], attrs=_TABLE_ATTRS,
            shape_fn=_scalar, kernel=_handle_kernel(_mutable), stateful=True)
register_op("MutableHashTableOfTensorsV2", outputs=["table_handle: resource"],
            attrs=_TABLE_ATTRS + ["value_shape: shape = []"], shape_fn=_scalar,
            kernel=_handle_kernel(_mutable), stateful=True)
register_op("MutableDenseHashTableV2", inputs=["empty_key: key_dtype",
                                               "deleted_key: key_dtype"],
            outputs=["table_handle: resource"],
            attrs=_TABLE_ATTRS + ["value_shape: shape = []", "initial_num_buckets: int = 131072",
                                  "max_load_factor: float = 0.8"],
            shape_fn=_scalar, kernel=_handle_kernel(_dense), stateful=True)


def _table(handle):
    """The table behind a handle value (a gathered handle arrives as a 0-d array)."""
    return handle[()] if isinstance(handle, np.ndarray) else handle


def _check_types(table, key_dtype, value_dtype=None):
    if np.dtype(key_dtype) != np.dtype(table.key_dtype) or (
            value_dtype is not None and np.dtype(value_dtype) != np.dtype(table.value_dtype)):
        raise errors.InvalidArgumentError(
            None, None, f"Conflicting key/value dtypes {np.dtype(key_dtype)}->"
                        f"{np.dtype(value_dtype or table.value_dtype)} with "
                        f"{np.dtype(table.key_dtype)}-{np.dtype(table.value_dtype)}")


def _find_kernel(table_handle, keys, default_value, *, Tin, Tout):
    table = _table(table_handle)
    _check_types(table, _np(Tin), _np(Tout))
    return table.find(keys, default_value)


def _insert_kernel(table_handle, keys, values, *, Tin, Tout):
    table = _table(table_handle)
    _check_types(table, _np(Tin), _np(Tout))
    table.insert(keys, values)


def _import_kernel(table_handle, keys, values, *, Tin, Tout):
    table = _table(table_handle)
    _check_types(table, _np(Tin), _np(Tout))
    table.import_values(keys, values)


def _initialize_kernel(table_handle, keys, values, *, Tkey, Tval):
    table = _table(table_handle)
    _check_types(table, _np(Tkey), _np(Tval))
    if np.shape(keys) != np.shape(values):
        raise errors.InvalidArgumentError(
            None, None, f"Expected shape {table_impl._fmt(np.shape(keys))} for value, got "
                        f"{table_impl._fmt(np.shape(values))}")
    table.import_values(keys, values)


def _text_init_kernel(table_handle, filename, *, key_index, value_index, vocab_size,
                      delimiter, offset):
    table = _table(table_handle)
    name = np.asarray(filename).item()
    name = name.decode() if isinstance(name, bytes) else str(name)
    if not name:
        raise errors.InvalidArgumentError(None, None, "filename cannot be empty.")
    pairs = text_file_init.read_pairs(name, key_index, value_index, vocab_size, delimiter,
                                      offset, table.key_dtype, table.value_dtype)
    table.initialize(pairs)


def _find_shape(op):
    keys = op._inputs[1].get_shape()
    handle_op = op._inputs[0].op
    vshape = handle_op._attrs.get("value_shape") if handle_op.type.endswith("V2") else None
    if handle_op.type == "HashTableV2" or handle_op.type == "MutableHashTableV2":
        vshape = TensorShape(())
    if vshape is None or keys.rank is None:
        return [unknown_shape()]
    return [keys.concatenate(vshape)]


def _check_kv_shape(op):
    """Values of a scalar-valued table have the keys' shape (TF's shape function)."""
    handle_op = op._inputs[0].op
    if handle_op.type in ("HashTableV2", "MutableHashTableV2"):
        keys, values = op._inputs[1].get_shape(), op._inputs[2].get_shape()
        if not keys.is_compatible_with(values):
            raise ValueError(f"Shapes must be equal rank, but are {keys} and {values} for "
                             f"'{op.name}' (op: '{op.type}')")
    return []


def _text_init_shape(op):
    shape = op._inputs[1].get_shape()
    if shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {shape.rank} for '{op.name}' "
                         f"(op: '{op.type}') with input shapes: [], {shape}.")
    return []


def _export_shape(op):
    return [TensorShape([None]), unknown_shape()]


register_op("LookupTableFindV2", inputs=["table_handle: resource", "keys: Tin",
                                         "default_value: Tout"],
            outputs=["values: Tout"], attrs=["Tin: type", "Tout: type"],
            shape_fn=_find_shape, kernel=_find_kernel, stateful=True, host_only=True)
register_op("LookupTableInsertV2", inputs=["table_handle: resource", "keys: Tin",
                                           "values: Tout"],
            attrs=["Tin: type", "Tout: type"], shape_fn=_check_kv_shape,
            kernel=_insert_kernel, stateful=True, host_only=True)
register_op("LookupTableRemoveV2", inputs=["table_handle: resource", "keys: Tin"],
            attrs=["Tin: type"], shape_fn=lambda op: [],
            kernel=lambda table_handle, keys, *, Tin: _table(table_handle).remove(keys),
            stateful=True, host_only=True)
register_op("LookupTableSizeV2", inputs=["table_handle: resource"], outputs=["size: int64"],
            shape_fn=_scalar, kernel=lambda table_handle: np.int64(_table(table_handle).size()),
            stateful=True, host_only=True)
register_op("LookupTableExportV2", inputs=["table_handle: resource"],
            outputs=["keys: Tkeys", "values: Tvalues"], attrs=["Tkeys: type", "Tvalues: type"],
            shape_fn=_export_shape, kernel=lambda table_handle, *, Tkeys, Tvalues:
            _table(table_handle).export(), stateful=True, host_only=True)
register_op("LookupTableImportV2", inputs=["table_handle: resource", "keys: Tin",
                                           "values: Tout"],
            attrs=["Tin: type", "Tout: type"], shape_fn=_check_kv_shape,
            kernel=_import_kernel, stateful=True, host_only=True)
register_op("InitializeTableV2", inputs=["table_handle: resource", "keys: Tkey",
                                         "values: Tval"],
            attrs=["Tkey: type", "Tval: type"], shape_fn=_check_kv_shape,
            kernel=_initialize_kernel, stateful=True, host_only=True)
register_op("InitializeTableFromTextFileV2", inputs=["table_handle: resource",
                                                     "filename: string"],
            attrs=["key_index: int >= -2", "value_index: int >= -2",
                   "vocab_size: int >= -1 = -1", "delimiter: string = '\t'",
                   "offset: int = 0"],
            shape_fn=_text_init_shape, kernel=_text_init_kernel, stateful=True, host_only=True)

for _t in ("HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
           "MutableDenseHashTableV2", "LookupTableFindV2", "LookupTableInsertV2",
           "LookupTableRemoveV2", "LookupTableSizeV2", "LookupTableExportV2",
           "LookupTableImportV2", "InitializeTableV2", "InitializeTableFromTextFileV2"):
    NotDifferentiable(_t)


# -- graph functions (gen_lookup_ops) ---------------------------------------------------
def hash_table_v2(key_dtype, value_dtype, container="", shared_name="",
                  use_node_name_sharing=False, name=None):
    return apply_op("HashTableV2", key_dtype=key_dtype, value_dtype=value_dtype,
                    container=container, shared_name=shared_name or "",
                    use_node_name_sharing=use_node_name_sharing, name=name).outputs[0]


def mutable_hash_table_v2(key_dtype, value_dtype, container="", shared_name="",
                          use_node_name_sharing=False, name=None):
    return apply_op("MutableHashTableV2", key_dtype=key_dtype, value_dtype=value_dtype,
                    container=container, shared_name=shared_name or "",
                    use_node_name_sharing=use_node_name_sharing, name=name).outputs[0]


def mutable_hash_table_of_tensors_v2(key_dtype, value_dtype, container="", shared_name="",
                                     use_node_name_sharing=False, value_shape=(), name=None):
    return apply_op("MutableHashTableOfTensorsV2", key_dtype=key_dtype,
                    value_dtype=value_dtype, container=container,
                    shared_name=shared_name or "", value_shape=value_shape,
                    use_node_name_sharing=use_node_name_sharing, name=name).outputs[0]


def mutable_dense_hash_table_v2(empty_key, deleted_key, value_dtype, container="",
                                shared_name="", use_node_name_sharing=False, value_shape=(),
                                initial_num_buckets=131072, max_load_factor=0.8, name=None):
    return apply_op("MutableDenseHashTableV2", empty_key=empty_key, deleted_key=deleted_key,
                    value_dtype=value_dtype, container=container,
                    shared_name=shared_name or "", value_shape=value_shape,
                    use_node_name_sharing=use_node_name_sharing,
                    initial_num_buckets=initial_num_buckets, max_load_factor=max_load_factor,
                    name=name).outputs[0]


def lookup_table_find_v2(table_handle, keys, default_value, name=None):
    return apply_op("LookupTableFindV2", table_handle=table_handle, keys=keys,
                    default_value=default_value, name=name).outputs[0]


def lookup_table_insert_v2(table_handle, keys, values, name=None):
    return apply_op("LookupTableInsertV2", table_handle=table_handle, keys=keys,
                    values=values, name=name)


def lookup_table_remove_v2(table_handle, keys, name=None):
    return apply_op("LookupTableRemoveV2", table_handle=table_handle, keys=keys, name=name)


def lookup_table_size_v2(table_handle, name=None):
    return apply_op("LookupTableSizeV2", table_handle=table_handle, name=name).outputs[0]


def lookup_table_export_v2(table_handle, Tkeys, Tvalues, name=None):  # noqa: N803
    op = apply_op("LookupTableExportV2", table_handle=table_handle, Tkeys=Tkeys,
                  Tvalues=Tvalues, name=name)
    return op.outputs[0], op.outputs[1]


def lookup_table_import_v2(table_handle, keys, values, name=None):
    return apply_op("LookupTableImportV2", table_handle=table_handle, keys=keys,
                    values=values, name=name)


def initialize_table_v2(table_handle, keys, values, name=None):
    return apply_op("InitializeTableV2", table_handle=table_handle, keys=keys,
                    values=values, name=name)


def initialize_table_from_text_file_v2(table_handle, filename, key_index, value_index,
                                       vocab_size=-1, delimiter="\t", offset=0, name=None):
    return apply_op("InitializeTableFromTextFileV2", table_handle=table_handle,
                    filename=filename, key_index=key_index, value_index=value_index,
                    vocab_size=vocab_size, delimiter=delimiter, offset=offset, name=name)
