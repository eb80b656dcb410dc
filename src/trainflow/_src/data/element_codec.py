"""How an element's leaves travel between dataset ops: a Tensor as itself, a
SparseTensor as one variant tensor (SerializeSparse, or SerializeManySparse for the
slices of a batch, as TF 1.15 carries it), a nested dataset (an element of `window`) as
its variant. `encode` makes the flat tensors of an element, `decode` the element of flat
tensors."""
from trainflow._src.data import structure as st
from trainflow._src.framework import dtypes
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.ops.sparse import sparse_serialize


def encode(tensors, many=False):
    """The flat tensors of nest `tensors` (leaves already Tensors or SparseTensors);
    `many`: the sparse leaves are batches whose slices become the elements."""
    out = []
    for t in st.flatten(tensors):
        if isinstance(t, SparseTensor):
            serialize = sparse_serialize.serialize_many_sparse if many \
                else sparse_serialize.serialize_sparse
            t = serialize(t, out_type=dtypes.variant)
        elif hasattr(t, "_variant_tensor"):
            t = t._variant_tensor
        out.append(t)
    return out


def decode_leaf(component, tensor):
    """The value of one component from the tensor it travels as."""
    if component.cls is SparseTensor:
        sparse = sparse_serialize.deserialize_sparse(tensor, component.dtype,
                                                     component.shape.rank)
        if component.shape.rank is not None:
            sparse.set_shape(component.shape)
        return sparse
    if isinstance(component.cls, st.DatasetSpec):
        return st.DatasetSpec.dataset_class(tensor, component.cls.structure)
    return tensor


def decode(structure, flat):
    """The element of `structure` whose components travel as `flat`."""
    return st.pack(structure.template,
                   [decode_leaf(c, t) for c, t in zip(structure.components, flat)])
