"""Assertions on tensor values, shapes and types (`tf.assert_*`, `tf.debugging`).

Each value assertion returns an Assert op that raises InvalidArgumentError
"assertion failed: [...]" when it runs and fails. When the answer is known while
building the graph the check happens then, as in TensorFlow: a statically false
value check raises InvalidArgumentError, a static rank mismatch ValueError, a
dtype mismatch TypeError; a statically satisfied rank or type check returns a
NoOp.
"""
__all__ = [
    "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
    "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
    "assert_non_negative", "assert_non_positive", "assert_rank", "assert_rank_at_least",
    "assert_rank_in", "assert_type", "assert_integer", "assert_scalar",
    "assert_proper_iterable", "assert_near", "assert_same_float_dtype", "is_non_decreasing",
    "is_strictly_increasing", "is_numeric_tensor", "check_numerics",
    "verify_tensor_all_finite", "add_check_numerics_ops",
]

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src.ops.math.numerics import add_check_numerics_ops, check_numerics  # noqa: F401
from trainflow._src.ops.math.numerics import verify_tensor_all_finite  # noqa: F401
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.array import slicing
from trainflow._src.ops.control_flow.grouping import no_op, with_dependencies
from trainflow._src.ops.control_flow.cond import cond

NUMERIC_TYPES = frozenset([
    dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16, dtypes.int32,
    dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.qint8,
    dtypes.qint16, dtypes.qint32, dtypes.quint8, dtypes.quint16, dtypes.complex64,
    dtypes.complex128, dtypes.bfloat16])


def _no_op(name):
    return no_op(name=name)


def _message_prefix(message):
    return "%s.  " % message if message else ""


def _static_text(x):
    if not isinstance(x, Tensor):
        return str(x)
    value = constant_value(x)
    return str(value) if value is not None else str(x)


def _assert_static(condition, data):
    if not condition:
        raise errors.InvalidArgumentError(None, None, "\n".join(_static_text(x) for x in data))


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name):
    with name_scope(name, opname, [x, y] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = ["Condition x %s y did not hold element-wise:" % sym,
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        if message is not None:
            data = [message] + list(data)
        condition = reductions.reduce_all(op_func(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(np.all(static_func(x_static, y_static)), data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Op asserting `x == y` element-wise (broadcasting).

    Args:
      x, y: tensors (or values) to compare.
      data: tensors printed on failure (default: a description of x and y).
      summarize: elements printed per tensor.
      message: text printed first.
      name: name scope.

    Returns:
      the Assert Operation (a NoOp if `x is y`).

    Raises:
      InvalidArgumentError: if x and y are static and differ.
    """
    with name_scope(name, "assert_equal", [x, y] + list(data or [])):
        if x is y:
            return _no_op(None)
    return _binary_assert("==", "assert_equal", arith.equal, np.equal, x, y, data,
                          summarize, message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Op asserting `x != y` for every element; see assert_equal."""
    return _binary_assert("!=", "assert_none_equal", arith.not_equal, np.not_equal, x, y,
                          data, summarize, message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """Op asserting `x < y` element-wise; see assert_equal."""
    return _binary_assert("<", "assert_less", arith.less, np.less, x, y, data, summarize,
                          message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Op asserting `x <= y` element-wise; see assert_equal."""
    return _binary_assert("<=", "assert_less_equal", arith.less_equal, np.less_equal, x, y,
                          data, summarize, message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """Op asserting `x > y` element-wise; see assert_equal."""
    return _binary_assert(">", "assert_greater", arith.greater, np.greater, x, y, data,
                          summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Op asserting `x >= y` element-wise; see assert_equal."""
    return _binary_assert(">=", "assert_greater_equal", arith.greater_equal,
                          np.greater_equal, x, y, data, summarize, message, name)


def _sign_assert(x, data, summarize, message, name, opname, text, zero_first, inner):
    message = _message_prefix(message)
    with name_scope(name, opname, [x] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, text, "x (%s) = " % x.name, x]
        zero = convert_to_tensor(0, dtype=x.dtype.base_dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return inner(a, b, data=data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """Op asserting every element of `x` is > 0; see assert_equal."""
    return _sign_assert(x, data, summarize, message, name, "assert_positive",
                        "Condition x > 0 did not hold element-wise:", True, assert_less)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """Op asserting every element of `x` is < 0; see assert_equal."""
    return _sign_assert(x, data, summarize, message, name, "assert_negative",
                        "Condition x < 0 did not hold element-wise:", False, assert_less)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """Op asserting every element of `x` is >= 0; see assert_equal."""
    return _sign_assert(x, data, summarize, message, name, "assert_non_negative",
                        "Condition x >= 0 did not hold element-wise:", True, assert_less_equal)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """Op asserting every element of `x` is <= 0; see assert_equal."""
    message = _message_prefix(message)
    with name_scope(name, "assert_non_positive", [x] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        if data is None:
            # TensorFlow joins these two strings into one data item; kept for fidelity.
            data = [message, "Condition x <= 0 did not hold element-wise:"
                    "x (%s) = " % x.name, x]
        zero = convert_to_tensor(0, dtype=x.dtype.base_dtype)
        return assert_less_equal(x, zero, data=data, summarize=summarize)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """Op asserting `|x - y| < atol + rtol * |y|` element-wise (defaults: 10 * eps).

    Raises:
      TypeError: if x, y are not floating/complex tensors of one dtype.
    """
    message = _message_prefix(message)
    with name_scope(name, "assert_near", [x, y, rtol, atol] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        dtype = x.dtype.base_dtype
        if dtype.is_complex:
            dtype = dtype.real_dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = 10 * eps if rtol is None else rtol
        atol = 10 * eps if atol is None else atol
        rtol = convert_to_tensor(rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(atol, name="atol", dtype=dtype)
        if data is None:
            data = [message, "x and y not equal to tolerance rtol = %s, atol = %s" % (rtol, atol),
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        tol = atol + rtol * arith.abs(y)
        diff = arith.abs(x - y)
        condition = reductions.reduce_all(arith.less(diff, tol))
        return Assert(condition, data, summarize=summarize)


def _assert_rank_condition(x, rank, static_condition, dynamic_condition, data, summarize):
    assert_type(rank, dtypes.int32)
    rank_static = constant_value(rank)
    if rank_static is not None:
        if np.ndim(rank_static) != 0:
            raise ValueError("Rank must be a scalar.")
        x_rank_static = x.get_shape().ndims
        if x_rank_static is not None:
            if not static_condition(x_rank_static, rank_static):
                raise ValueError("Static rank condition failed", x_rank_static, rank_static)
            return _no_op("static_checks_determined_all_ok")
    condition = dynamic_condition(shape_lib.rank(x), rank)
    if rank_static is None:
        rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
        condition = with_dependencies([rank_check], condition)
    return Assert(condition, data, summarize=summarize)


def _is_sparse(x):
    return type(x).__name__ == "SparseTensor"


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Op asserting `x` has rank `rank`.

    Returns:
      a NoOp when the rank is known statically, else an Assert op.

    Raises:
      ValueError: if the static rank differs, or `rank` is not a scalar.
    """
    with name_scope(name, "assert_rank", [x, rank] + list(data or [])):
        if not _is_sparse(x):
            x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        tname = "" if _is_sparse(x) else x.name
        if data is None:
            data = [message, "Tensor %s must have rank" % tname, rank, "Received shape: ",
                    shape_lib.shape(x)]
        try:
            return _assert_rank_condition(x, rank, lambda a, r: a == r, arith.equal, data,
                                          summarize)
        except ValueError as e:
            if e.args[0] == "Static rank condition failed":
                raise ValueError("%sTensor %s must have rank %d.  Received rank %d, shape %s" %
                                 (message, tname, e.args[2], e.args[1], x.get_shape())) from None
            raise


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Op asserting `x` has rank `rank` or more; see assert_rank."""
    with name_scope(name, "assert_rank_at_least", [x, rank] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        if data is None:
            data = [message, "Tensor %s must have rank at least" % x.name, rank,
                    "Received shape: ", shape_lib.shape(x)]
        try:
            return _assert_rank_condition(x, rank, lambda a, r: a >= r, arith.greater_equal,
                                          data, summarize)
        except ValueError as e:
            if e.args[0] == "Static rank condition failed":
                raise ValueError("%sTensor %s must have rank at least %d.  Received rank %d, "
                                 "shape %s" % (message, x.name, e.args[2], e.args[1],
                                               x.get_shape())) from None
            raise


def _dynamic_rank_in(actual_rank, given_ranks):
    if len(given_ranks) < 1:
        return convert_to_tensor(False)
    result = arith.equal(given_ranks[0], actual_rank)
    for given in given_ranks[1:]:
        result = arith.logical_or(result, arith.equal(given, actual_rank))
    return result


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Op asserting the rank of `x` is one of `ranks`; see assert_rank."""
    with name_scope(name, "assert_rank_in", [x] + list(ranks) + list(data or [])):
        if not _is_sparse(x):
            x = convert_to_tensor(x, name="x")
        ranks = [convert_to_tensor(r, name="rank") for r in ranks]
        message = _message_prefix(message)
        tname = "" if _is_sparse(x) else x.name
        if data is None:
            data = [message, "Tensor %s must have rank in" % tname] + list(ranks) + \
                   ["Received shape: ", shape_lib.shape(x)]
        for r in ranks:
            assert_type(r, dtypes.int32)
        statics = [constant_value(r) for r in ranks]
        if all(s is not None for s in statics):
            if any(np.ndim(s) != 0 for s in statics):
                raise ValueError("Rank must be a scalar.")
            x_rank = x.get_shape().ndims
            if x_rank is not None:
                if x_rank not in [int(s) for s in statics]:
                    raise ValueError("%sTensor %s must have rank in %s.  Received rank %d, shape "
                                     "%s" % (message, tname, tuple(int(s) for s in statics),
                                             x_rank, x.get_shape()))
                return _no_op("static_checks_determined_all_ok")
        condition = _dynamic_rank_in(shape_lib.rank(x), ranks)
        for r, s in zip(ranks, statics):
            if s is None:
                check = assert_rank(r, 0, data=["Rank must be a scalar. Received rank: ", r])
                condition = with_dependencies([check], condition)
        return Assert(condition, data, summarize=summarize)


def assert_integer(x, message=None, name=None):
    """NoOp if `x` has an integer dtype.

    Raises:
      TypeError: otherwise.
    """
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError('%sExpected "x" to be integer type.  Found: %s of dtype %s'
                            % (_message_prefix(message), x.name, x.dtype))
        return _no_op("statically_determined_was_integer")


def assert_type(tensor, tf_type, message=None, name=None):
    """NoOp if `tensor` has dtype `tf_type`.

    Raises:
      TypeError: otherwise.
    """
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type", [tensor]):
        if not _is_sparse(tensor):
            tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{_message_prefix(message)}{getattr(tensor, 'name', 'tensor')} must "
                            f"be of type {tf_type!r}; got {tensor.dtype!r}")
        return _no_op("statically_determined_correct_type")


def assert_scalar(tensor, name=None, message=None):
    """Returns `tensor` (converted) if it is statically a scalar.

    Raises:
      ValueError: if its static rank is not 0 (also when unknown).
    """
    with name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope)
        shape = tensor.get_shape()
        if shape.ndims != 0:
            raise ValueError("%sExpected scalar shape for %s, saw shape: %s."
                             % (_message_prefix(message), tensor.name, shape))
        return tensor


def assert_proper_iterable(values):
    """Checks that `values` is an iterable other than a tensor, array or string.

    Raises:
      TypeError: if it is not.
    """
    unintentional = (Tensor, np.ndarray, bytes, str)
    if isinstance(values, unintentional) or _is_sparse(values):
        raise TypeError('Expected argument "values" to be a "proper" iterable.  Found: %s'
                        % type(values))
    if not hasattr(values, "__iter__"):
        raise TypeError('Expected argument "values" to be iterable.  Found: %s' % type(values))


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of `tensors` (and `dtype`), float32 if none.

    Raises:
      ValueError: if they differ or are not floating point.
    """
    if tensors:
        for t in tensors:
            if t is None:
                continue
            t_type = t.dtype.base_dtype
            if dtype is None:
                dtype = t_type
            elif t_type != dtype:
                raise ValueError("%s, type=%s, must be of the same type (%s)." %
                                 (getattr(t, "name", t), t_type, dtype))
    if not dtype:
        return dtypes.float32
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype)
    return dtype


def is_numeric_tensor(tensor):
    """True for a Tensor of a numeric dtype."""
    return isinstance(tensor, Tensor) and tensor.dtype.base_dtype in NUMERIC_TYPES


def _monotonic(x, compare):
    x = shape_lib.reshape(x, [-1])
    if not is_numeric_tensor(x):
        raise TypeError("Expected x to be numeric, instead found: %s" % x)
    is_shorter_than_two = arith.less(shape_lib.size(x), 2)
    s_len = shape_lib.shape(x) - 1
    return cond(is_shorter_than_two,
                lambda: convert_to_tensor([], dtype=dtypes.bool),
                lambda: compare(slicing.strided_slice(x, [1], [1] + s_len),
                                slicing.strided_slice(x, [0], s_len)))


def is_non_decreasing(x, name=None):
    """Scalar bool: the flattened `x` never decreases (true for fewer than 2 elements).

    Raises:
      TypeError: if `x` is not numeric.
    """
    with name_scope(name, "is_non_decreasing", [x]):
        return reductions.reduce_all(_monotonic(x, arith.greater_equal))


def is_strictly_increasing(x, name=None):
    """Scalar bool: the flattened `x` strictly increases (true for fewer than 2 elements).

    Raises:
      TypeError: if `x` is not numeric.
    """
    with name_scope(name, "is_strictly_increasing", [x]):
        return reductions.reduce_all(_monotonic(x, arith.greater))
