"""How an op's inputs group into the arguments of its signature (op_def.py)."""


def input_groups(op):
    """Number of tensors per input argument of `op`; None marks a single (non-list)
    argument. A kernel is called with one argument per group (a list for a count)."""
    attrs = op._attrs
    return [arg.count(attrs) for arg in op._info.op_def.inputs]
