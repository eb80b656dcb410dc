"""ParseExampleDatasetV2 (`tf.data.experimental.parse_example_dataset`): each element, a
vector of serialized Examples, parsed into its features with parse_example's kernel (the
vectorized column path for a batch); components in sorted key order over dense and sparse
keys, a sparse one (VarLenFeature) as the [3] variant a dataset carries a SparseTensor in."""
import numpy as np

from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.io import example_parser

_T3 = "{float, int64, string}"


def _np(dtype):
    return object if dtype.name == "string" else dtype.as_numpy_dtype


def _keys(keys):
    return [k.decode() if isinstance(k, bytes) else str(k) for k in keys]


def _variant(indices, values, shape):
    out = np.empty(3, dtype=object)
    out[0], out[1], out[2] = indices, values, shape
    return out


class ParseConfig:
    """The parse_example arguments of the op's attrs."""

    def __init__(self, dense_keys, Tdense, dense_shapes, defaults, sparse_keys=(),
                 sparse_types=()):
        self.keys = _keys(dense_keys)
        self.sparse_keys = _keys(sparse_keys)
        self.sparse_types = [_np(t) for t in sparse_types]
        self.types = [_np(t) for t in Tdense]
        self.shapes, self.variable = [], []
        for s in dense_shapes:
            dims = s.as_list()
            variable = bool(dims) and dims[0] is None
            self.variable.append(variable)
            self.shapes.append(tuple(dims[1:] if variable else dims))
        self.defaults = [np.asarray(d, dtype=t) for d, t in zip(defaults, self.types)]
        # (key, is_sparse, index) of each output component, in sorted key order
        self.order = sorted([(k, False, i) for i, k in enumerate(self.keys)] +
                            [(k, True, i) for i, k in enumerate(self.sparse_keys)])

    def parse(self, serialized):
        sp_idx, sp_val, sp_shape, dense = example_parser.parse_example(
            np.asarray(serialized, dtype=object), np.empty(0, object), self.sparse_keys,
            self.sparse_types, self.keys, self.types, self.shapes, self.variable,
            self.defaults)
        return [_variant(sp_idx[i], sp_val[i], sp_shape[i]) if sparse else dense[i]
                for _, sparse, i in self.order]


class ParseExampleValue(dv.DatasetValue):
    def __init__(self, source, config):
        self.source, self.config = source, config

    def iterator(self):
        return _ParseIterator(self.source.iterator(), self.config)

    def cardinality(self):
        return self.source.cardinality()

    def inputs(self):
        return (self.source,)


class _ParseIterator(dv.ChildIterator):
    def __init__(self, source, config):
        super().__init__(source)
        self.config = config

    def next(self, state):
        element = self.source.next(state)
        if element is dv.END:
            return dv.END
        return self.config.parse(element[0])

    def save(self):
        return {"source": self.source.save()}

    def restore(self, saved):
        self.source.restore(saved["source"])


def _parse_example_dataset(input_dataset, num_parallel_calls, dense_defaults, *, sparse_keys,
                           dense_keys, sparse_types, Tdense, dense_shapes):
    return ParseExampleValue(dv.as_dataset(input_dataset),
                             ParseConfig(dense_keys, Tdense, dense_shapes, dense_defaults,
                                         sparse_keys, sparse_types))


register_dataset("ParseExampleDatasetV2",
                 ["input_dataset: variant", "num_parallel_calls: int64",
                  "dense_defaults: Tdense"],
                 ["sparse_keys: list(string) >= 0", "dense_keys: list(string) >= 0",
                  f"sparse_types: list({_T3}) >= 0", f"Tdense: list({_T3}) >= 0",
                  "dense_shapes: list(shape) >= 0",
                  "output_types: list(type) >= 1", "output_shapes: list(shape) >= 1",
                  "deterministic: string = 'default'", "ragged_keys: list(string) >= 0 = []",
                  f"ragged_value_types: list({_T3}) >= 0 = []",
                  "ragged_split_types: list({int32, int64}) >= 0 = []"],
                 _parse_example_dataset, element_attrs=False, metadata=False)
