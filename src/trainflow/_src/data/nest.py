"""tf.data's nest utilities (TF's `python/data/util/nest`): like tf.nest, but only tuples
(namedtuples included) and dicts are structure; a list is a leaf (tf.data converts it to
one tensor), and so is a SparseTensorValue. Dict values go in sorted key order; packing
keeps an OrderedDict's own key order."""
from trainflow._src.framework.sparse_tensor import SparseTensorValue


def is_sequence(seq):
    """Whether `seq` is a tf.data structure (a tuple or dict, not a SparseTensorValue)."""
    return isinstance(seq, (tuple, dict)) and not isinstance(seq, SparseTensorValue)


def _yield_value(iterable):
    if isinstance(iterable, dict):
        for key in sorted(iterable):
            yield iterable[key]
    else:
        yield from iterable


def _sequence_like(instance, args):
    if isinstance(instance, dict):
        result = dict(zip(sorted(instance), args))
        return type(instance)((key, result[key]) for key in instance)
    if hasattr(instance, "_fields"):
        return type(instance)(*args)
    return type(instance)(args)


def flatten(nest):
    """The leaves of `nest` in tf.data's order; [nest] for a leaf."""
    if not is_sequence(nest):
        return [nest]
    out = []
    for value in _yield_value(nest):
        out.extend(flatten(value))
    return out


def _packed(structure, flat, index):
    packed = []
    for value in _yield_value(structure):
        if is_sequence(value):
            index, child = _packed(value, flat, index)
            packed.append(_sequence_like(value, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def pack_sequence_as(structure, flat_sequence):
    """`flat_sequence` arranged as `structure`."""
    if not (is_sequence(flat_sequence) or isinstance(flat_sequence, list)):
        raise TypeError("flat_sequence must be a sequence")
    if not is_sequence(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == "
                             f"{len(flat_sequence)} > 1")
        return flat_sequence[0]
    flat_structure = flatten(structure)
    if len(flat_structure) != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {len(flat_structure)} "
                         f"elements, but flat_sequence had {len(flat_sequence)} elements.  "
                         f"Structure: {structure}, flat_sequence: {flat_sequence}.")
    return _sequence_like(structure, _packed(structure, list(flat_sequence), 0)[1])


def _assert_same(nest1, nest2, check_types):
    if is_sequence(nest1) != is_sequence(nest2):
        raise ValueError(f"The two structures don't have the same nested structure. First "
                         f"structure: {nest1}, second structure: {nest2}.")
    if not is_sequence(nest1):
        return
    if check_types and type(nest1) is not type(nest2):
        raise TypeError(f"The two structures don't have the same sequence type. First "
                        f"structure has type {type(nest1)}, while second structure has type "
                        f"{type(nest2)}.")
    for n1, n2 in zip(_yield_value(nest1), _yield_value(nest2)):
        _assert_same(n1, n2, check_types)


def assert_same_structure(nest1, nest2, check_types=True):
    """ValueError/TypeError unless the two nests have the same structure."""
    len1 = len(flatten(nest1)) if is_sequence(nest1) else 1
    len2 = len(flatten(nest2)) if is_sequence(nest2) else 1
    if len1 != len2:
        raise ValueError(f"The two structures don't have the same number of elements. First "
                         f"structure: {nest1}, second structure: {nest2}.")
    _assert_same(nest1, nest2, check_types)


def map_structure(func, *structure, **check_types_dict):
    """`func` applied to the leaves of the structures, packed as the first."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = True
    if check_types_dict:
        if "check_types" not in check_types_dict or len(check_types_dict) > 1:
            raise ValueError("Only valid keyword argument is check_types")
        check_types = check_types_dict["check_types"]
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flat = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*x) for x in zip(*flat)])


def assert_shallow_structure(shallow_tree, input_tree, check_types=True):
    """ValueError/TypeError unless `input_tree` has `shallow_tree`'s structure down to
    its leaves."""
    if not is_sequence(shallow_tree):
        return
    if not is_sequence(input_tree):
        raise TypeError(f"If shallow structure is a sequence, input must also be a sequence. "
                        f"Input has type: {type(input_tree)}.")
    if check_types and not isinstance(input_tree, type(shallow_tree)):
        raise TypeError(f"The two structures don't have the same sequence type. Input "
                        f"structure has type {type(input_tree)}, while shallow structure has "
                        f"type {type(shallow_tree)}.")
    if len(input_tree) != len(shallow_tree):
        raise ValueError(f"The two structures don't have the same sequence length. Input "
                         f"structure has length {len(input_tree)}, while shallow structure has "
                         f"length {len(shallow_tree)}.")
    if check_types and isinstance(shallow_tree, dict):
        if set(input_tree) != set(shallow_tree):
            raise ValueError(f"The two structures don't have the same keys. Input structure "
                             f"has keys {list(input_tree)}, while shallow structure has keys "
                             f"{list(shallow_tree)}.")
        input_tree = sorted(input_tree.items())
        shallow_tree = sorted(shallow_tree.items())
    for shallow_branch, input_branch in zip(shallow_tree, input_tree):
        assert_shallow_structure(shallow_branch, input_branch, check_types=check_types)


def _flat_up_to(shallow_tree, input_tree):
    if not is_sequence(shallow_tree):
        return [input_tree]
    out = []
    for shallow, value in zip(_yield_value(shallow_tree), _yield_value(input_tree)):
        out.extend(_flat_up_to(shallow, value))
    return out


def flatten_up_to(shallow_tree, input_tree):
    """`input_tree` flattened down to the leaves of `shallow_tree`."""
    assert_shallow_structure(shallow_tree, input_tree)
    return _flat_up_to(shallow_tree, input_tree)


def map_structure_up_to(shallow_tree, func, *inputs):
    """`func` applied to the parts of `inputs` at the leaves of `shallow_tree`."""
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    for input_tree in inputs:
        assert_shallow_structure(shallow_tree, input_tree)
    flat = [flatten_up_to(shallow_tree, input_tree) for input_tree in inputs]
    return pack_sequence_as(shallow_tree, [func(*parts) for parts in zip(*flat)])
