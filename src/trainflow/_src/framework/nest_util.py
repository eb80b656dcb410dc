"""A plain nested-list flatten shared by modules that must not depend on `ops.nest`."""


def flatten_plain(structure):
    """The leaves of nested lists, tuples and dicts (dict values in sorted key order).

    Unlike `nest.flatten`, only these three kinds nest: any other value (including
    other Mappings and attrs objects) is a leaf, and a lone leaf flattens to [leaf].
    """
    stack, out = [structure], []
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(item[k] for k in sorted(item, reverse=True))
        else:
            out.append(item)
    return out
