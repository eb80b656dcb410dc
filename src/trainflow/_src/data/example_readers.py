"""`tf.data.experimental.parse_example_dataset` and `make_batched_features_dataset`."""
from trainflow._src.data import structure as st
from trainflow._src.data.reader_seams import maybe_shuffle_and_repeat, read_files
from trainflow._src.data.dataset_ops import AUTOTUNE, DatasetV1
from trainflow._src.data.readers import TFRecordDatasetV1
from trainflow._src.framework import dtypes
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.dataset import parse_example_ops  # noqa: F401 - registers the op
from trainflow._src.ops.io.parsing_config import ParseParams
from trainflow._src.ops.io.parsing_ops import _merge_sparse_features, dense_default_tensors


def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """A transformation (for `Dataset.apply`) parsing each element, a vector of serialized
    Examples, into a dict of its `features`: Tensors for FixedLenFeature and
    FixedLenSequenceFeature, SparseTensors for VarLenFeature and SparseFeature.

    Raises:
      ValueError: if `features` is None.
      TypeError: if the dataset's elements are not string vectors.
    """
    if features is None:
        raise ValueError("Argument `features` is required, but not specified.")

    def _apply_fn(dataset):
        if dataset.output_types != dtypes.string or \
                not isinstance(dataset.output_shapes, TensorShape) or \
                dataset.output_shapes.rank != 1:
            raise TypeError("Input dataset should be a dataset of vectors of strings")
        params = ParseParams(features)
        batch = dataset.output_shapes[:1]
        comps = {key: st.Component(dtype, batch.concatenate([None]), SparseTensor)
                 for key, dtype in zip(params.sparse_keys, params.sparse_types)}
        for key, dtype, shape, variable in zip(params.dense_keys, params.dense_types,
                                               params.dense_shapes, params.dense_variable):
            inner = TensorShape([None]).concatenate(shape) if variable else shape
            comps[key] = st.Component(dtype, batch.concatenate(inner), Tensor)
        structure = st.Structure(comps)
        op = apply_op(
            "ParseExampleDatasetV2", input_dataset=dataset._variant_tensor,
            num_parallel_calls=convert_to_tensor(num_parallel_calls, dtypes.int64,
                                                 name="num_parallel_calls"),
            dense_defaults=dense_default_tensors(params), sparse_keys=list(params.sparse_keys),
            dense_keys=list(params.dense_keys), sparse_types=params.sparse_types,
            Tdense=params.dense_types,
            dense_shapes=params.dense_shapes_attr(), output_types=structure.flat_types,
            output_shapes=structure.flat_shapes,
            deterministic="default" if deterministic is None else
            ("true" if deterministic else "false"))
        parsed = DatasetV1(op.outputs[0], structure)
        if not params.sparse_features:
            return parsed
        # TF's _construct_tensors_for_composite_features: each SparseFeature merged from
        # its index and value parts, the parts not asked for dropped (a sequential map: the
        # merge is cheap next to the parse, and its results are the same)
        params.requested = set(features)
        return parsed.map(lambda x: _merge_composite(params, dict(x)))

    return _apply_fn


def _merge_composite(params, tensors):
    """The SparseFeatures of `tensors` merged, with the static batch size of their parts
    (as TF's map function infers it)."""
    batch = {key: tensors[f.index_key if isinstance(f.index_key, str) else f.index_key[0]]
             .shape[:1] for key, f in params.sparse_features.items()}
    out = _merge_sparse_features(params, tensors)
    for key, f in params.sparse_features.items():
        sizes = list(f.size) if isinstance(f.size, (list, tuple)) else [f.size]
        out[key].set_shape(batch[key].concatenate(sizes))
    return out


def make_batched_features_dataset(file_pattern, batch_size, features,
                                  reader=TFRecordDatasetV1, label_key=None, reader_args=None,
                                  num_epochs=None, shuffle=True, shuffle_buffer_size=10000,
                                  shuffle_seed=None, prefetch_buffer_size=None,
                                  reader_num_threads=None, parser_num_threads=None,
                                  sloppy_ordering=False, drop_final_batch=False):
    """Batches of feature dicts (and labels, with `label_key`) parsed from the Example
    records of the files matching `file_pattern` (TF 1.15's make_batched_features_dataset).

    Raises:
      ValueError: if `label_key` is not a key of `features`.
    """
    if reader_num_threads is None:
        reader_num_threads = 1
    if parser_num_threads is None:
        parser_num_threads = 2
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    if label_key is not None and label_key not in features:
        raise ValueError(f"The `label_key` provided ({label_key}) must be one of the "
                         "`features` keys.")
    dataset = DatasetV1.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    args = list(reader_args or [])
    dataset = read_files(dataset, lambda filename: reader(filename, *args), reader_num_threads,
                         sloppy_ordering)
    dataset = maybe_shuffle_and_repeat(dataset, num_epochs, shuffle, shuffle_buffer_size,
                                       shuffle_seed)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features,
                                                  num_parallel_calls=parser_num_threads))
    if label_key is not None:
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset.prefetch(prefetch_buffer_size)
