"""tf.data's sparse utilities (TF's `python/data/util/sparse`): the classes of a nest of
tensors, the types and shapes SparseTensor components travel as (a variant of unknown
shape), and serializing a nest's SparseTensors to variants and back."""
from trainflow._src.data import nest
from trainflow._src.framework import dtypes
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import unknown_shape
from trainflow._src.ops.sparse import sparse_serialize


def any_sparse(classes):
    """Whether any class in the nest `classes` is SparseTensor."""
    return any(c is SparseTensor for c in nest.flatten(classes))


def as_dense_shapes(shapes, classes):
    """`shapes` with each SparseTensor component's shape unknown."""
    return nest.pack_sequence_as(shapes, [
        unknown_shape() if c is SparseTensor else s
        for s, c in zip(nest.flatten(shapes), nest.flatten(classes))])


def as_dense_types(types, classes):
    """`types` with each SparseTensor component's type variant."""
    return nest.pack_sequence_as(types, [
        dtypes.variant if c is SparseTensor else t
        for t, c in zip(nest.flatten(types), nest.flatten(classes))])


def get_classes(tensors):
    """The nest of classes (SparseTensor or Tensor) of `tensors`."""
    return nest.pack_sequence_as(tensors, [
        SparseTensor if isinstance(t, SparseTensor) else Tensor
        for t in nest.flatten(tensors)])


def _serialize(tensors, serialize):
    return nest.pack_sequence_as(tensors, [
        serialize(t, out_type=dtypes.variant) if isinstance(t, SparseTensor) else t
        for t in nest.flatten(tensors)])


def serialize_sparse_tensors(tensors):
    """`tensors` with each SparseTensor serialized to a [3] variant."""
    return _serialize(tensors, sparse_serialize.serialize_sparse)


def serialize_many_sparse_tensors(tensors):
    """`tensors` with each SparseTensor serialized to an [N, 3] variant (its slices)."""
    return _serialize(tensors, sparse_serialize.serialize_many_sparse)


def deserialize_sparse_tensors(tensors, types, shapes, classes):
    """`tensors` with each SparseTensor component (per `classes`) deserialized."""
    out = []
    for t, dtype, shape, cls in zip(nest.flatten(tensors), nest.flatten(types),
                                    nest.flatten(shapes), nest.flatten(classes)):
        if cls is SparseTensor:
            t = sparse_serialize.deserialize_sparse(t, dtype, shape.rank)
        out.append(t)
    return nest.pack_sequence_as(tensors, out)
