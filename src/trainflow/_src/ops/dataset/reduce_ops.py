"""Ops that read a whole dataset into tensors: ReduceDataset (Dataset.reduce),
DatasetToSingleElement (tf.data.experimental.get_single_element) and DatasetCardinality
(tf.data.experimental.cardinality)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_function import cached_function

_ELEMENT = ["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]


def _element_shapes(op):
    shapes = op._attrs.get("output_shapes") or []
    return list(shapes) if shapes else [unknown_shape()] * len(op._outputs)


def _outputs(values):
    return values[0] if len(values) == 1 else tuple(values)


def _reduce(input_dataset, initial_state, other_arguments, *, ctx):
    fn = cached_function(ctx, "f", other_arguments)
    state = [np.asarray(s) for s in initial_state]
    iterator = dv.as_dataset(input_dataset).iterator()
    try:
        while True:
            element = iterator.next(ctx.run_state)
            if element is dv.END:
                break
            new = fn(list(state) + list(element))
            for k, (old, value) in enumerate(zip(state, new)):
                if np.asarray(value).dtype != old.dtype:
                    raise errors.InvalidArgumentError(
                        None, ctx.op, f"The result of the reduce function has type "
                                      f"{np.asarray(value).dtype} at component {k}; the "
                                      f"initial state has {old.dtype}")
            state = [np.asarray(v) for v in new]
    finally:
        iterator.close()
    return _outputs(state)


def _single_element(dataset, *, ctx):
    iterator = dv.as_dataset(dataset).iterator()
    try:
        element = iterator.next(ctx.run_state)
        if element is dv.END:
            raise errors.InvalidArgumentError(None, ctx.op, "Dataset was empty.")
        if iterator.next(ctx.run_state) is not dv.END:
            raise errors.InvalidArgumentError(None, ctx.op,
                                              "Dataset had more than one element.")
    finally:
        iterator.close()
    return _outputs([np.asarray(c) for c in element])


def _cardinality(input_dataset, *, ctx):
    return np.asarray(dv.as_dataset(input_dataset).cardinality(), dtype=np.int64)


register_op("ReduceDataset", inputs=["input_dataset: variant", "initial_state: Tstate",
                                     "other_arguments: Targuments"],
            outputs=["components: output_types"],
            attrs=["f: func", "Tstate: list(type) >= 1", "Targuments: list(type) >= 0"] +
            _ELEMENT + ["use_inter_op_parallelism: bool = true", "metadata: string = ''"],
            shape_fn=_element_shapes, kernel=_reduce, stateful=True, host_only=True)
register_op("DatasetToSingleElement", inputs=["dataset: variant"],
            outputs=["components: output_types"], attrs=_ELEMENT + ["metadata: string = ''"],
            shape_fn=_element_shapes, kernel=_single_element, stateful=True, host_only=True)
for _name in ("DatasetCardinality", "ExperimentalDatasetCardinality"):
    register_op(_name, inputs=["input_dataset: variant"], outputs=["cardinality: int64"],
                attrs=["cardinality_options: string = ''"] if _name == "DatasetCardinality"
                else [], shape_fn=lambda op: [TensorShape([])], kernel=_cardinality,
                host_only=True)
for _name in ("ReduceDataset", "DatasetToSingleElement", "DatasetCardinality",
              "ExperimentalDatasetCardinality"):
    NotDifferentiable(_name)
