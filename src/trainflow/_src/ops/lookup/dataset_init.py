"""InitializeTableFromDataset: fills a table from a dataset of (key, value) scalar pairs
(tf.data.experimental.DatasetInitializer)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.lookup import lookup_ops


def _initialize_from_dataset(table_handle, dataset, *, ctx):
    table = lookup_ops._table(table_handle)
    keys, values = [], []
    iterator = dv.as_dataset(dataset).iterator()
    try:
        while True:
            element = iterator.next(ctx.run_state)
            if element is dv.END:
                break
            if len(element) != 2:
                raise errors.InvalidArgumentError(
                    None, ctx.op, f"Expected dataset elements to be (key, value) pairs, got "
                                  f"{len(element)} components")
            keys.append(element[0])
            values.append(element[1])
    finally:
        iterator.close()
    key_array = np.empty(len(keys), dtype=table.key_dtype)
    value_array = np.empty(len(values), dtype=table.value_dtype)
    for i, (k, v) in enumerate(zip(keys, values)):
        key_array[i], value_array[i] = np.asarray(k)[()], np.asarray(v)[()]
    table.import_values(key_array, value_array)


register_op("InitializeTableFromDataset", inputs=["table_handle: resource", "dataset: variant"],
            shape_fn=lambda op: [], kernel=_initialize_from_dataset, stateful=True,
            host_only=True)
NotDifferentiable("InitializeTableFromDataset")


def initialize_table_from_dataset(table_handle, dataset, name=None):
    """The InitializeTableFromDataset op filling `table_handle` from `dataset`."""
    return apply_op("InitializeTableFromDataset", table_handle=table_handle, dataset=dataset,
                    name=name)
