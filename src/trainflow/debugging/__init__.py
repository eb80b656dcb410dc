"""`tf.debugging`: assertions, numeric checks and related predicates."""
from trainflow._src.ops.control_flow.check_ops import (  # noqa: F401
    assert_equal, assert_greater, assert_greater_equal, assert_integer, assert_less,
    assert_less_equal, assert_near, assert_negative, assert_non_negative, assert_non_positive,
    assert_none_equal, assert_positive, assert_proper_iterable, assert_rank,
    assert_rank_at_least, assert_rank_in, assert_same_float_dtype, assert_scalar, assert_type,
    check_numerics, is_non_decreasing, is_numeric_tensor, is_strictly_increasing)
from trainflow._src.ops.control_flow.assert_op import Assert  # noqa: F401
from trainflow._src.ops.math.math_ops import is_finite, is_inf, is_nan  # noqa: F401
from trainflow._src.ops.math.numerics import (  # noqa: F401
    verify_tensor_all_finite as assert_all_finite)
from trainflow._src.ops.control_flow.assert_shapes import assert_shapes  # noqa: F401
