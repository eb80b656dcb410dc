"""Helpers of `tf.distributions`: parameters from logits or probs, and the checks a
distribution embeds in its tensors when `validate_args` is on."""
import hashlib

import numpy as np

from trainflow._src.framework import dtypes, tensor_shape, tensor_util
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.control_flow.grouping import no_op, with_dependencies
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn.softmax import softmax

_SIGNED = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16,
           dtypes.int32, dtypes.int64)
_UNSIGNED = (dtypes.bool, dtypes.uint8, dtypes.uint16)


def _check_known(dt):
    if dt.base_dtype not in _SIGNED + _UNSIGNED:
        raise TypeError("Unrecognized dtype: {}".format(dt.name))


def largest_integer_by_dtype(dt):
    """The largest integer `dt` holds exactly."""
    _check_known(dt)
    if dt.is_floating:
        return int(2 ** (np.finfo(dt.as_numpy_dtype).nmant + 1))
    if dt.base_dtype == dtypes.bool:
        return 1
    return int(np.iinfo(dt.as_numpy_dtype).max)


def smallest_integer_by_dtype(dt):
    """The smallest integer `dt` holds exactly."""
    _check_known(dt)
    return 0 if dt.base_dtype in _UNSIGNED else -largest_integer_by_dtype(dt)


def is_integer_like(dt):
    _check_known(dt)
    return dt.is_integer or dt.base_dtype == dtypes.bool


def assert_integer_form(x, data=None, summarize=None, message=None, int_dtype=None,
                        name="assert_integer_form"):
    """An assert that floating `x` has no fractional part (a no-op for integers)."""
    with name_scope(name, values=[x, data]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_integer:
            return no_op()
        message = message or "{} has non-integer components".format(x)
        if int_dtype is None:
            try:
                int_dtype = {dtypes.float16: dtypes.int16, dtypes.float32: dtypes.int32,
                             dtypes.float64: dtypes.int64}[x.dtype.base_dtype]
            except KeyError:
                raise TypeError("Unrecognized type {}".format(x.dtype.name)) from None
        return check_ops.assert_equal(x, math_ops.cast(math_ops.cast(x, int_dtype), x.dtype),
                                      data=data, summarize=summarize, message=message,
                                      name=name)


def embed_check_nonnegative_integer_form(x, name="embed_check_nonnegative_integer_form"):
    """`x` with asserts that it is non-negative and integer-valued."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        checks = [check_ops.assert_non_negative(
            x, message="'{}' must be non-negative.".format(x))]
        if not x.dtype.is_integer:
            checks.append(assert_integer_form(
                x, message="'{}' cannot contain fractional components.".format(x)))
        return with_dependencies(checks, x)


def embed_check_categorical_event_shape(categorical_param,
                                        name="embed_check_categorical_event_shape"):
    """The parameter, checked to hold at least 2 classes and no more than its dtype counts."""
    with name_scope(name, values=[categorical_param]):
        x = convert_to_tensor(categorical_param, name="categorical_param")
        x_dtype = x.dtype.base_dtype
        max_event_size = largest_integer_by_dtype(x_dtype) if x_dtype.is_floating else 0
        if max_event_size == 0:
            raise TypeError("Unable to validate size of unrecognized dtype ({}).".format(
                x_dtype.name))
        try:
            static = x.get_shape().with_rank_at_least(1)
        except ValueError:
            raise ValueError("A categorical-distribution parameter must have at least 1 "
                             "dimension.") from None
        if tensor_shape.dimension_value(static[-1]) is not None:
            event_size = static.dims[-1].value
            if event_size < 2:
                raise ValueError("A categorical-distribution parameter must have at least 2 "
                                 "events.")
            if event_size > max_event_size:
                raise ValueError("Number of classes exceeds `dtype` precision, i.e., {} "
                                 "implies shape ({}) cannot exceed {}.".format(
                                     x_dtype.name, event_size, max_event_size))
            return x
        event_size = array_ops.shape(x, name="x_shape")[-1]
        return with_dependencies([
            check_ops.assert_rank_at_least(
                x, 1, message="A categorical-distribution parameter must have at least 1 "
                              "dimension."),
            check_ops.assert_greater_equal(
                array_ops.shape(x)[-1], 2,
                message="A categorical-distribution parameter must have at least 2 events."),
            check_ops.assert_less_equal(
                event_size, max_event_size,
                message="Number of classes exceeds `dtype` precision, i.e., {} dtype cannot "
                        "exceed {} shape.".format(x_dtype.name, max_event_size))], x)


def embed_check_integer_casting_closed(x, target_dtype, assert_nonnegative=True,
                                       name="embed_check_casting_closed"):
    """`x` with asserts that casting it to `target_dtype` loses nothing."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if not is_integer_like(x.dtype) and not x.dtype.is_floating:
            raise TypeError("{}.dtype must be floating- or integer-type.".format(x.dtype.name))
        if not is_integer_like(target_dtype) and not target_dtype.is_floating:
            raise TypeError("target_dtype ({}) must be floating- or integer-type.".format(
                target_dtype.name))
        if not is_integer_like(x.dtype) and not is_integer_like(target_dtype):
            raise TypeError("At least one of {}.dtype ({}) and target_dtype ({}) must be "
                            "integer-type.".format(x, x.dtype.name, target_dtype.name))
        checks = []
        if assert_nonnegative:
            checks.append(check_ops.assert_non_negative(
                x, message="Elements must be non-negative."))
        if x.dtype.is_floating:
            checks.append(assert_integer_form(
                x, int_dtype=target_dtype,
                message="Elements must be {}-equivalent.".format(target_dtype.name)))
        else:
            top = largest_integer_by_dtype(target_dtype)
            if largest_integer_by_dtype(x.dtype) > top:
                checks.append(check_ops.assert_less_equal(
                    x, top, message="Elements cannot exceed {}.".format(top)))
            low = smallest_integer_by_dtype(target_dtype)
            if not assert_nonnegative and smallest_integer_by_dtype(x.dtype) < low:
                checks.append(check_ops.assert_greater_equal(
                    x, low, message="Elements cannot be smaller than {}.".format(low)))
        return with_dependencies(checks, x) if checks else x


def get_logits_and_probs(logits=None, probs=None, multidimensional=False,
                         validate_args=False, name="get_logits_and_probs", dtype=None):
    """(logits, probs) from either one: sigmoid/softmax one way, log-odds/log the other."""
    with name_scope(name, values=[probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = convert_to_tensor(logits, name="logits", dtype=dtype)
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                if validate_args:
                    logits = embed_check_categorical_event_shape(logits)
                return logits, softmax(logits, name="probs")
            return logits, math_ops.sigmoid(logits, name="probs")
        probs = convert_to_tensor(probs, name="probs", dtype=dtype)
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with name_scope("validate_probs"):
                one = convert_to_tensor(1.0, dtype=probs.dtype)
                checks = [check_ops.assert_non_negative(probs)]
                if multidimensional:
                    probs = embed_check_categorical_event_shape(probs)
                    checks.append(check_ops.assert_near(
                        math_ops.reduce_sum(probs, -1), one,
                        message="probs does not sum to 1."))
                else:
                    checks.append(check_ops.assert_less_equal(
                        probs, one, message="probs has components greater than 1."))
                probs = with_dependencies(checks, probs)
        with name_scope("logits"):
            if multidimensional:
                return math_ops.log(probs), probs
            return math_ops.log(probs) - math_ops.log1p(-1.0 * probs), probs


def pick_vector(cond, true_vector, false_vector, name="pick_vector"):
    """`true_vector` if `cond` else `false_vector`, statically where `cond` is known."""
    with name_scope(name, values=(cond, true_vector, false_vector)):
        cond = convert_to_tensor(cond, name="cond")
        if cond.dtype != dtypes.bool:
            raise TypeError("%s.dtype=%s which is not %s" % (cond, cond.dtype, dtypes.bool))
        static = tensor_util.constant_value(cond)
        if static is not None:
            return true_vector if static else false_vector
        true_vector = convert_to_tensor(true_vector, name="true_vector")
        false_vector = convert_to_tensor(false_vector, name="false_vector")
        if true_vector.dtype != false_vector.dtype:
            raise TypeError("%s.dtype=%s does not match %s.dtype=%s" % (
                true_vector, true_vector.dtype, false_vector, false_vector.dtype))
        n = array_ops.shape(true_vector)[0]
        return array_ops.slice(array_ops.concat([true_vector, false_vector], 0),
                               [array_ops.where_v2(cond, 0, n)],
                               [array_ops.where(cond, n, -1)])


def log_combinations(n, counts, name="log_combinations"):
    """log(n! / prod(counts!)) over the last dimension of `counts`."""
    with name_scope(name, values=[n, counts]):
        n = convert_to_tensor(n, name="n")
        counts = convert_to_tensor(counts, name="counts")
        total_permutations = math_ops.lgamma(n + 1)
        redundant = math_ops.reduce_sum(math_ops.lgamma(counts + 1), axis=[-1])
        return total_permutations - redundant


def gen_new_seed(seed, salt):
    """A second op seed from `seed` and a salt (None stays None), as TF derives it."""
    if seed is None:
        return None
    digest = hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()  # noqa: S324
    return int(digest[:8], 16) & 0x7FFFFFFF
