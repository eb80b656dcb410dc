"""`tf.nest`'s public functions with TensorFlow's signatures: `nest`'s walks, plus
`expand_composites`, which opens SparseTensors and IndexedSlices into their component
tensors (indices, values, dense_shape / values, indices[, dense_shape])."""
from trainflow._src.framework import nest
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.sparse_tensor import SparseTensor

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure",
           "pack_sequence_as"]

is_nested = nest.is_nested


def _components(value):
    """The component tensors of a composite value, or None for any other value."""
    if isinstance(value, SparseTensor):
        return (value.indices, value.values, value.dense_shape)
    if isinstance(value, IndexedSlices):
        if value.dense_shape is None:
            return (value.values, value.indices)
        return (value.values, value.indices, value.dense_shape)
    return None


def _rebuild(like, components):
    if isinstance(like, SparseTensor):
        return SparseTensor(*components)
    return IndexedSlices(*components)


def _expand(structure):
    """`structure` with every composite replaced by the tuple of its components."""
    return nest.pack_sequence_as(structure, [
        leaf if _components(leaf) is None else _components(leaf)
        for leaf in nest.flatten(structure)])


def flatten(structure, expand_composites=False):
    """The leaves of `structure` in order (dict values by sorted key); a lone leaf gives
    `[leaf]`; with `expand_composites`, composites give their component tensors."""
    return nest.flatten(_expand(structure) if expand_composites else structure)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`flat_sequence` packed into the nesting of `structure` (a composite of `structure`
    takes as many values as it has components when `expand_composites`).

    Raises:
      ValueError: if the number of values differs from the number of leaves.
    """
    if not expand_composites:
        return nest.pack_sequence_as(structure, flat_sequence)
    flat = list(flat_sequence)
    nest.pack_sequence_as(_expand(structure), flat)  # checks the count, with nest's error
    out, i = [], 0
    for leaf in nest.flatten(structure):
        parts = _components(leaf)
        if parts is None:
            out.append(flat[i])
            i += 1
        else:
            out.append(_rebuild(leaf, flat[i:i + len(parts)]))
            i += len(parts)
    return nest.pack_sequence_as(structure, out)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Checks that two structures nest alike.

    Raises:
      ValueError: if they differ in nesting, length or dict keys.
      TypeError: if `check_types` and the sequence types differ.
    """
    if expand_composites:
        nest1, nest2 = _expand(nest1), _expand(nest2)
    nest.assert_same_structure(nest1, nest2, check_types=check_types)


def map_structure(func, *structure, **kwargs):
    """`func` applied to the corresponding leaves of the structures, packed like the first.

    Raises:
      ValueError: for keyword arguments other than check_types and expand_composites, or
        structures that differ.
    """
    unexpected = sorted(set(kwargs) - {"check_types", "expand_composites"})
    if unexpected:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         "`expand_composites` - got unexpected keyword arguments: "
                         f"{', '.join(unexpected)}")
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.get("check_types", True)
    expand = kwargs.get("expand_composites", False)
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types,
                              expand_composites=expand)
    flats = [flatten(s, expand_composites=expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)],
                            expand_composites=expand)
