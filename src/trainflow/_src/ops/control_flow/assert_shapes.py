"""`tf.debugging.assert_shapes` (TF1's): check tensors' shapes against symbolic shapes
whose letters must agree between tensors; static where the sizes are known (ValueError),
Assert ops where they are not."""
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src.ops.control_flow.check_ops import (
    _message_prefix, assert_rank, assert_rank_at_least, assert_rank_in)
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.control_flow.grouping import group
from trainflow._src.ops.math import arith

__all__ = ["assert_shapes"]


def _dimension_sizes(x):
    """x's sizes: ints where static, scalar tensors where not; a scalar counts as [1]."""
    dynamic = shape_lib.shape(x)
    rank = x.get_shape().rank
    if rank == 0:
        return (1,)
    if rank is not None:
        return [int(s) if s is not None else dynamic[i]
                for i, s in enumerate(x.get_shape().as_list())]
    return cond(arith.equal(shape_lib.rank(x), 0), lambda: constant([1]), lambda: dynamic)


def _known(size):
    if size is None:
        return False
    try:
        int(size)
    except (TypeError, ValueError):
        return False
    return True


class _Sizes:
    __slots__ = ("x", "unspecified_dim", "actual_sizes", "symbolic_sizes")

    def __init__(self, x, unspecified_dim, actual_sizes, symbolic_sizes):
        self.x, self.unspecified_dim = x, unspecified_dim
        self.actual_sizes, self.symbolic_sizes = actual_sizes, symbolic_sizes


def _tensor_name(x):
    if isinstance(x, SparseTensor):
        return "(%s, dtype=%s)" % (x.get_shape(), x.dtype.name)
    return x.name


def _parse(tensor, symbolic_shape, message_prefix):
    if not (hasattr(symbolic_shape, "__iter__") or hasattr(symbolic_shape, "__getitem__")):
        raise ValueError(
            "%sTensor %s.  Specified shape must be an iterable.  An iterable has the "
            "attribute `__iter__` or `__getitem__`.  Received specified shape: %s"
            % (message_prefix, _tensor_name(tensor), symbolic_shape))
    symbols = tuple(symbolic_shape)
    innermost = False
    for i, symbol in enumerate(symbols):
        if symbol is Ellipsis or symbol == "*":
            if i != 0:
                raise ValueError(
                    "%sTensor %s specified shape index %d.  Symbol `...` or `*` for a "
                    "variable number of unspecified dimensions is only allowed as the first "
                    "entry" % (message_prefix, _tensor_name(tensor), i))
            innermost = True
    symbols = symbols[1:] if innermost else symbols
    return _Sizes(tensor, innermost, _dimension_sizes(tensor), symbols or (1,))


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """An op asserting each (tensor, shape) of `shapes` (pairs or a dict): sizes are ints,
    letters that must agree across tensors, None or '.' for any size, and a leading '*' or
    ... for any number of outer dimensions."""
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    with name_scope(name, "assert_shapes", [shapes, data]):
        sizes_list = [_parse(x if isinstance(x, SparseTensor) else convert_to_tensor(x), s,
                             prefix) for x, s in shapes if s is not None]
        rank_checks = []
        for sizes in sizes_list:
            rank = len(sizes.symbolic_sizes)
            if sizes.unspecified_dim:
                if rank in (0, 1):
                    continue
                check = assert_rank_at_least(x=sizes.x, rank=rank, data=data,
                                             summarize=summarize, message=message, name=name)
            elif rank in (0, 1):
                check = assert_rank_in(x=sizes.x, ranks=[0, 1], data=data,
                                       summarize=summarize, message=message, name=name)
            else:
                check = assert_rank(x=sizes.x, rank=rank, data=data, summarize=summarize,
                                    message=message, name=name)
            rank_checks.append(check)
        size_checks = []
        seen = {}
        for sizes in sizes_list:
            for i, symbol in enumerate(sizes.symbolic_sizes):
                if symbol in (None, "."):
                    continue
                dim = i - len(sizes.symbolic_sizes) if sizes.unspecified_dim else i
                if symbol not in seen and not _known(symbol):
                    with control_dependencies(rank_checks):
                        seen[symbol] = (sizes.actual_sizes[dim], sizes.x, dim)
                    continue
                if _known(symbol):
                    want, how = int(symbol), "Specified explicitly"
                else:
                    want, by, by_dim = seen[symbol]
                    how = "Specified by tensor %s dimension %d" % (_tensor_name(by), by_dim)
                with control_dependencies(rank_checks):
                    actual = sizes.actual_sizes[dim]
                if _known(actual) and _known(want):
                    if int(actual) != int(want):
                        raise ValueError(
                            "%s%s.  Tensor %s dimension %s must have size %d.  Received "
                            "size %d, shape %s" % (prefix, how, _tensor_name(sizes.x), dim,
                                                   want, actual, sizes.x.get_shape()))
                    continue
                condition = arith.equal(convert_to_tensor(actual), convert_to_tensor(want))
                fields = data if data is not None else [
                    prefix, how, "Tensor %s dimension" % _tensor_name(sizes.x), dim,
                    "must have size", want, "Received shape: ", shape_lib.shape(sizes.x)]
                size_checks.append(Assert(condition, fields, summarize=summarize))
    with control_dependencies(rank_checks):
        return group(size_checks)
