"""Nested structures of values, as `tf.nest` treats them.

Lists, tuples, namedtuples, dicts (and other Mappings) and attrs classes are
structures; everything else (Tensors, arrays, None, strings) is a leaf. Dicts
flatten in sorted key order, so two dicts with the same keys flatten alike.
"""
import collections.abc

__all__ = ["is_nested", "flatten", "pack_sequence_as", "assert_same_structure",
           "map_structure"]


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _is_attrs(value):
    return hasattr(type(value), "__attrs_attrs__")


def is_nested(value):
    """True if `value` is a structure (list, tuple, Mapping, attrs object)."""
    return isinstance(value, (list, tuple, collections.abc.Mapping)) or _is_attrs(value)


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError as e:
        raise TypeError("nest only supports dicts with sortable keys.") from e


def _children(value):
    """The direct children of a structure, in flattening order."""
    if isinstance(value, collections.abc.Mapping):
        return [value[k] for k in _sorted_keys(value)]
    if _is_attrs(value):
        return [getattr(value, a.name) for a in type(value).__attrs_attrs__]
    return list(value)


def flatten(structure):
    """The leaves of `structure` in order (a leaf flattens to `[leaf]`)."""
    if not is_nested(structure):
        return [structure]
    out = []
    stack = [structure]
    while stack:
        item = stack.pop()
        if is_nested(item):
            stack.extend(reversed(_children(item)))
        else:
            out.append(item)
    return out


def _rebuild(instance, args):
    """A structure like `instance` whose children are `args`."""
    if isinstance(instance, collections.abc.Mapping):
        by_key = dict(zip(_sorted_keys(instance), args))
        if isinstance(instance, collections.defaultdict):
            out = collections.defaultdict(instance.default_factory)
            for k in instance:
                out[k] = by_key[k]
            return out
        return type(instance)((k, by_key[k]) for k in instance)
    if _is_namedtuple(instance):
        return type(instance)(*args)
    if _is_attrs(instance):
        return type(instance)(*args)
    if isinstance(instance, tuple):
        return tuple(args)
    if isinstance(instance, list):
        return list(args)
    return type(instance)(args)


def _count_leaves(structure):
    return len(flatten(structure))


def pack_sequence_as(structure, flat_sequence):
    """Packs `flat_sequence` into the nesting of `structure`.

    Raises:
      ValueError: if the number of values differs from the number of leaves.
    """
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == "
                             f"{len(flat_sequence)} > 1")
        return flat_sequence[0]
    n = _count_leaves(structure)
    if n != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but "
                         f"flat_sequence had {len(flat_sequence)} items.  Structure: "
                         f"{structure}, flat_sequence: {flat_sequence}.")
    it = iter(flat_sequence)

    def build(node):
        if not is_nested(node):
            return next(it)
        return _rebuild(node, [build(c) for c in _children(node)])
    return build(structure)


def _same_type(a, b):
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping):
        return True
    if _is_namedtuple(a) and _is_namedtuple(b):
        return type(a).__name__ == type(b).__name__ and type(a)._fields == type(b)._fields
    return type(a) is type(b)


def _shape_str(structure):
    if not is_nested(structure):
        return "."
    inner = ", ".join(_shape_str(c) for c in _children(structure))
    if isinstance(structure, collections.abc.Mapping):
        inner = ", ".join(f"{k!r}: {_shape_str(structure[k])}" for k in _sorted_keys(structure))
        return "{" + inner + "}"
    if isinstance(structure, list):
        return "[" + inner + "]"
    return "(" + inner + ("," if len(structure) == 1 else "") + ")"


def assert_same_structure(nest1, nest2, check_types=True):
    """Checks that two structures nest the same way.

    Raises:
      ValueError: if they differ in nesting, length or dict keys.
      TypeError: if `check_types` and the sequence types differ.
    """
    stack = [(nest1, nest2)]
    while stack:
        a, b = stack.pop()
        if is_nested(a) != is_nested(b):
            seq, other = (a, b) if is_nested(a) else (b, a)
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {nest1}\n\nSecond structure: {nest2}\n\n"
                f"More specifically: Substructure \"{seq}\" is a sequence, while "
                f"substructure \"{other}\" is not\nEntire first structure:\n"
                f"{_shape_str(nest1)}\nEntire second structure:\n{_shape_str(nest2)}")
        if not is_nested(a):
            continue
        if check_types and not _same_type(a, b):
            raise TypeError(
                "The two structures don't have the same sequence type. Input structure "
                f"has type {type(a)}, while shallow structure has type {type(b)}.")
        if isinstance(a, collections.abc.Mapping) and set(a) != set(b):
            raise ValueError(
                "The two dictionaries don't have the same set of keys. First structure "
                f"has keys {sorted(a, key=str)}, while second structure has keys "
                f"{sorted(b, key=str)}.")
        ca, cb = _children(a), _children(b)
        if len(ca) != len(cb):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {nest1}\n\nSecond structure: {nest2}\n\n"
                "More specifically: The two structures don't have the same number of "
                f"elements. First structure: {a}. Second structure: {b}\n"
                f"Entire first structure:\n{_shape_str(nest1)}\n"
                f"Entire second structure:\n{_shape_str(nest2)}")
        stack.extend(zip(ca, cb))


def map_structure(fn, *structures, check_types=True):
    """Applies `fn` to the corresponding leaves of `structures`; keeps the nesting
    of the first one.

    Raises:
      ValueError / TypeError: if the structures differ.
    """
    if not structures:
        raise ValueError("Must provide at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types=check_types)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])
