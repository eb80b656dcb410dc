"""Graph building of the math functions: TF1 op names and types, dtype rules,
conversion of Python values, error messages and run-time errors. Expected names
and messages were taken from TensorFlow 2.21 in TF1 mode
(test_math_tf_interop.py re-checks them against TF when it is available)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors, registry
from trainflow._src.ops.math import math_ops



def _ops(g, start=0):
    return [(op.name, op.type) for op in g.get_operations()[start:]]


def _run(t, feed=None):
    with tf.Session(graph=t.graph) as sess:
        return sess.run(t, feed)


@pytest.fixture
def g():
    with tf.Graph().as_default() as graph:
        yield graph


@pytest.fixture
def f32(g):
    return tf.placeholder(tf.float32, [2, 3], name="f32")


def test_add_names_as_tf(g, f32):
    n = len(g.get_operations())
    assert tf.add(f32, f32).name == "Add:0"
    # Graph names are unique case-insensitively, as in TF: "add" follows "Add".
    assert (f32 + f32).name == "add_1:0"
    assert (2.0 + f32).name == "add_2:0"
    assert (f32 + 1).name == "add_3:0"
    assert _ops(g, n) == [("Add", "AddV2"), ("add_1", "AddV2"), ("add_2/x", "Const"),
                          ("add_2", "AddV2"), ("add_3/y", "Const"), ("add_3", "AddV2")]


def test_string_add_uses_add_op(g):
    s = tf.constant(["a", "b"])
    t = tf.add(s, "c")
    assert t.op.type == "Add"
    assert (s + s).op.type == "Add"
    assert _run(t).tolist() == [b"ac", b"bc"]


@pytest.mark.parametrize("expr,name,op_type", [
    (lambda x: x - 1.0, "sub", "Sub"), (lambda x: 1.0 - x, "sub", "Sub"),
    (lambda x: x * x, "mul", "Mul"), (lambda x: x / x, "truediv", "RealDiv"),
    (lambda x: x // x, "floordiv", "FloorDiv"), (lambda x: x % 2.0, "mod", "FloorMod"),
    (lambda x: x ** 2.0, "pow", "Pow"), (lambda x: 2.0 ** x, "pow", "Pow"),
    (lambda x: -x, "Neg", "Neg"), (lambda x: abs(x), "Abs", "Abs"),
    (lambda x: x < 1.0, "Less", "Less"), (lambda x: x <= x, "LessEqual", "LessEqual"),
    (lambda x: x > 1.0, "Greater", "Greater"), (lambda x: 1.0 < x, "Greater", "Greater"),
    (lambda x: x >= x, "GreaterEqual", "GreaterEqual"),
    (lambda x: tf.subtract(x, x), "Sub", "Sub"), (lambda x: tf.multiply(x, x), "Mul", "Mul"),
    (lambda x: tf.divide(x, x), "truediv", "RealDiv"), (lambda x: tf.div(x, x), "div", "RealDiv"),
    (lambda x: tf.realdiv(x, x), "RealDiv", "RealDiv"), (lambda x: tf.mod(x, x), "FloorMod",
                                                           "FloorMod"),
    (lambda x: tf.pow(x, x), "Pow", "Pow"), (lambda x: tf.sigmoid(x), "Sigmoid", "Sigmoid"),
    (lambda x: tf.add_n([x, x]), "AddN", "AddN"), (lambda x: tf.reduce_mean(x), "Mean", "Mean"),
    (lambda x: tf.argmax(x), "ArgMax", "ArgMax"), (lambda x: tf.cumsum(x), "Cumsum", "Cumsum"),
    (lambda x: tf.scalar_mul(2.0, x), "Mul", "Mul"),
])
def test_default_names(g, f32, expr, name, op_type):
    t = expr(f32)
    assert (t.op.name, t.op.type) == (name, op_type)


def test_matmul_names_and_batching(g, f32):
    m = tf.placeholder(tf.float32, [3, 4])
    assert (f32 @ m).op.name == "matmul"
    mm = tf.matmul(f32, m)
    assert (mm.op.name, mm.op.type, mm.shape.as_list()) == ("MatMul_1", "MatMul", [2, 4])
    b = tf.placeholder(tf.float32, [5, 2, 3])
    t = tf.matmul(b, m)
    assert t.op.type == "BatchMatMulV2" and t.shape.as_list() == [5, 2, 4]
    u = tf.matmul(tf.placeholder(tf.float32), m)
    assert u.op.type == "BatchMatMulV2" and u.shape.rank is None
    op = tf.matmul(f32, f32, transpose_b=True).op
    assert {k: op.get_attr(k) for k in ("transpose_a", "transpose_b", "grad_a", "grad_b")} == \
        {"transpose_a": False, "transpose_b": True, "grad_a": False, "grad_b": False}
    bt = tf.matmul(b, b, transpose_b=True).op
    assert bt.type == "BatchMatMulV2" and bt.get_attr("adj_y") is True


def test_python_values_take_the_tensor_dtype(g):
    f64 = tf.placeholder(tf.float64, [2])
    i32 = tf.placeholder(tf.int32, [2])
    assert (f64 * 2.0).dtype == tf.float64
    assert (2.0 * f64).dtype == tf.float64
    assert (2 * f64).dtype == tf.float64
    assert (i32 + 2).dtype == tf.int32
    assert (f64 + np.float32(1.5)).dtype == tf.float64
    with pytest.raises(TypeError, match="Expected int32 passed to parameter 'y' of op 'Mul'"):
        i32 * 2.5
    with pytest.raises(TypeError, match="int32"):
        2.5 * i32
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does "
                                        "not match type int32 of argument 'x'."):
        tf.add(i32, 2.5)


def test_float32_and_float64_never_mix(g, f32):
    f64 = tf.placeholder(tf.float64, [2, 3])
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float64 that does "
                                        "not match type float32 of argument 'x'."):
        f32 + f64
    with pytest.raises(TypeError, match=r"`x` and `y` must have the same dtype, got "
                                        r"tf.float32 != tf.float64."):
        f32 / f64
    with pytest.raises(TypeError, match="Input 'b' of 'MatMul' Op has type float64"):
        tf.matmul(f32, tf.constant(np.ones((3, 2))))


def test_disallowed_dtype_lists_tf_types(g):
    i32 = tf.placeholder(tf.int32, [2])
    with pytest.raises(TypeError, match="Value passed to parameter 'x' has DataType int32 not "
                                        "in list of allowed values: bfloat16, float16, float32, "
                                        "float64, complex64, complex128"):
        tf.sqrt(i32)
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        tf.add(tf.constant([True]), tf.constant([True]))
    with pytest.raises(TypeError, match="Input 'x' of 'LogicalAnd' Op has type float32 that "
                                        "does not match expected type of bool."):
        tf.logical_and(tf.constant([1.0]), tf.constant([1.0]))


def test_equality_operators_are_identity(g, f32):
    other = tf.placeholder(tf.float32, [2, 3])
    assert (f32 == f32) is True
    assert (f32 == other) is False
    assert (f32 != other) is True
    assert len({f32, other, f32}) == 2


def test_tf1_div_floors_integers(g):
    a = tf.constant([7, -7], dtype=tf.int32)
    b = tf.constant([2, 2], dtype=tf.int32)
    t = tf.div(a, b)
    assert t.op.type == "FloorDiv" and t.dtype == tf.int32
    assert _run(t).tolist() == [3, -4]
    assert tf.div(tf.constant([7.0]), 2.0).op.type == "RealDiv"


def test_truediv_casts_integers_like_tf(g):
    for dt, want in [(tf.int32, tf.float64), (tf.int64, tf.float64), (tf.uint8, tf.float32),
                     (tf.int16, tf.float32)]:
        x = tf.constant([3, 4], dtype=dt)
        t = x / tf.constant([2, 8], dtype=dt)
        assert t.dtype == want
        assert t.op.inputs[0].op.type == "Cast"
        np.testing.assert_allclose(_run(t), [1.5, 0.5])


def test_truediv_rejects_bool(g):
    b = tf.constant([True])
    with pytest.raises(TypeError, match=r"Invalid dtype tf.bool in __truediv__. Expected one "
                                        r"of \{tf.uint8, tf.int8"):
        b / b


def test_bool_and_int_logic_operators(g):
    bo = tf.constant([True, False, True])
    both = bo & bo
    assert (both.op.type, both.op.name) == ("LogicalAnd", "and")
    assert (bo | bo).op.type == "LogicalOr"
    assert (~bo).op.type == "LogicalNot"
    x = bo ^ tf.constant([True, True, False])
    assert x.op.name == "xor" and x.op.type == "LogicalAnd"
    assert _run(x).tolist() == [False, True, True]
    i = tf.constant([6, 3], dtype=tf.int32)
    assert (i & 3).op.name == "and_1/BitwiseAnd"
    assert _run(i & 3).tolist() == [2, 3]
    assert _run(i | 1).tolist() == [7, 3]
    assert _run(i ^ 5).tolist() == [3, 6]
    assert (~i).op.type == "Invert" and _run(~i).tolist() == [-7, -4]
    with pytest.raises(TypeError, match="DataType float32 not in list of allowed values: "
                                        "int8, int16"):
        ~tf.constant([1.0])


def test_right_operand_gets_its_reflected_turn(g, f32):
    class Scaled:
        def __radd__(self, other):
            return "radd called"
    assert f32 + Scaled() == "radd called"


def test_logical_xor_builds_tf_graph(g):
    a, b = tf.constant([True, False]), tf.constant([True, True])
    n = len(g.get_operations())
    t = tf.logical_xor(a, b)
    assert _ops(g, n) == [("LogicalOr", "LogicalOr"), ("LogicalAnd", "LogicalAnd"),
                          ("LogicalNot", "LogicalNot"), ("LogicalXor", "LogicalAnd")]
    assert _run(t).tolist() == [False, True]


def test_round_returns_integers_unchanged(g):
    i = tf.constant([1, 2])
    assert tf.round(i) is i
    assert _run(tf.round(tf.constant([0.5, 1.5, 2.5, -0.5, -2.5]))).tolist() == \
        [0.0, 2.0, 2.0, -0.0, -2.0]


def test_abs_of_complex_is_real(g):
    t = tf.abs(tf.constant([3 + 4j], dtype=tf.complex64))
    assert t.op.type == "ComplexAbs" and t.dtype == tf.float32
    assert _run(t).tolist() == [5.0]


def test_conj_and_real_pass_real_tensors_through(g, f32):
    assert tf.conj(f32) is f32
    assert tf.real(f32) is f32
    c = tf.constant([1 + 2j], dtype=tf.complex128)
    assert _run(tf.conj(c)).tolist() == [1 - 2j]
    assert tf.real(c).dtype == tf.float64 and _run(tf.imag(c)).tolist() == [2.0]


def test_add_n_forms(g, f32):
    assert tf.add_n([f32]) is f32
    named = tf.add_n([f32], name="total")
    assert (named.op.type, named.op.name) == ("Identity", "total")
    t = tf.add_n([1.0, 2.0, 3.0])
    assert t.op.type == "AddN" and _run(t) == 6.0
    with pytest.raises(ValueError, match="Inputs must be an iterable of at least one "
                                         "Tensor/IndexedSlices"):
        tf.add_n([])
    with pytest.raises(TypeError, match=r"Tensors in list passed to 'inputs' of 'AddN' Op have "
                                        r"types \[float32, float64\] that don't all match."):
        tf.add_n([f32, tf.placeholder(tf.float64, [2, 3])])
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 1"):
        tf.add_n([f32, tf.placeholder(tf.float32, [3])])


def test_add_n_run_time_shape_check(g):
    a = tf.placeholder(tf.float32)
    t = tf.add_n([a, tf.constant([1.0, 2.0])])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Inputs to operation AddN of type AddN must have the same size "
                             r"and shape.  Input 0: \[3\] != input 1: \[2\]"):
        _run(t, {a: np.ones(3, np.float32)})


def test_accumulate_n_checks(g, f32):
    assert tf.accumulate_n([f32]) is f32
    assert tf.accumulate_n([f32, f32]).op.type == "AddN"
    with pytest.raises(ValueError, match="inputs must be a list of at least one Tensor"):
        tf.accumulate_n([])
    with pytest.raises(TypeError, match="The `tensor_dtype` argument is"):
        tf.accumulate_n([f32, f32], tensor_dtype=tf.float64)
    with pytest.raises(ValueError):
        tf.accumulate_n([f32, f32], shape=[3, 3])


def test_scalar_mul_requires_scalar(g, f32):
    t = tf.scalar_mul(2, f32)
    assert t.op.inputs[0].op.name == "scalar" and t.dtype == tf.float32
    with pytest.raises(ValueError, match=r"The input scalar must be a 0-D value. Received "
                                         r"shape \(1,\)."):
        tf.scalar_mul(tf.constant([2.0]), f32)


def test_matmul_argument_errors(g, f32):
    with pytest.raises(ValueError, match="Only one of `transpose_a` and `adjoint_a` can be "
                                         "True. Received `transpose_a`=True, `adjoint_a`=True."):
        tf.matmul(f32, f32, transpose_a=True, adjoint_a=True)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2 for "
                                         "'{{node MatMul"):
        tf.matmul(f32, f32)
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.matmul(tf.constant([1.0, 2.0, 3.0]), tf.placeholder(tf.float32, [3, 4]))


@pytest.mark.parametrize("fn,x,y", [(tf.floordiv, [5, 7], [1, 0]), (tf.floormod, [5], [0]),
                                    (tf.truncatediv, [5], [0]), (tf.truncatemod, [5], [0])])
def test_integer_division_by_zero_fails_at_run_time(g, fn, x, y):
    t = fn(tf.constant(x), tf.constant(y))
    with pytest.raises(errors.InvalidArgumentError, match="Integer division by zero"):
        _run(t)


def test_integer_negative_power_fails(g):
    t = tf.pow(tf.constant([2]), tf.constant([-1]))
    with pytest.raises(errors.InvalidArgumentError,
                       match="Integers to negative integer powers are not allowed"):
        _run(t)


def test_float_edge_values_follow_tf(g):
    outs = [tf.floordiv(tf.constant([5.0, -5.0, 1.0]), tf.constant([0.0, -0.0, 0.1])),
            tf.floormod(tf.constant([5.0, -5.0, 5.0]), tf.constant([3.0, 3.0, -3.0])),
            tf.maximum(tf.constant([np.nan, 1.0, 2.0]), tf.constant([1.0, np.nan, 0.0])),
            tf.rsqrt(tf.constant([4.0, 0.0, -1.0]))]
    with tf.Session() as sess, np.errstate(all="ignore"):
        got = sess.run(outs)
    np.testing.assert_array_equal(got[0], [np.inf, np.inf, 10.0])
    np.testing.assert_array_equal(got[1], [2.0, 1.0, -1.0])
    np.testing.assert_array_equal(got[2], [np.nan, np.nan, 2.0])
    np.testing.assert_array_equal(got[3], [0.5, np.inf, np.nan])


def test_sigmoid_matches_tf_at_extremes(g):
    with np.errstate(over="ignore"):  # exp(100) overflows to inf, giving exactly 0
        got = _run(tf.sigmoid(tf.constant([-100.0, -20.0, 0.0, 20.0, 100.0])))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [0.0, 2.0611537e-09, 0.5, 1.0, 1.0], rtol=1e-6)


def test_kernels_never_alias_inputs(g):
    x = tf.placeholder(tf.float32, [3])
    i = tf.placeholder(tf.int32, [3])
    outs = [math_ops._out("AddN", None, inputs=[x]),
            math_ops._out("Round", None, x=i), tf.reduce_sum(x, [])]
    value = np.array([1.0, 2.0, 3.0], np.float32)
    ivalue = np.array([1, 2, 3], np.int32)
    with tf.Session() as sess:
        got = sess.run(outs, {x: value, i: ivalue})
    assert not any(np.shares_memory(v, value) or np.shares_memory(v, ivalue) for v in got)


def test_common_binary_kernels_are_bare_ufuncs():
    for op_type, ufunc in [("AddV2", np.add), ("Sub", np.subtract), ("Mul", np.multiply),
                           ("Maximum", np.maximum), ("Less", np.less), ("Neg", np.negative),
                           ("Tanh", np.tanh), ("Square", np.square)]:
        info = registry.get(op_type)
        assert info.kernel is ufunc and info.kernel_attrs == () and not info.kernel_wants_ctx


def test_half_precision_kernels_keep_dtype(g):
    for dt in (tf.float16, tf.bfloat16):
        x = tf.constant([0.5, 1.0, 2.0], dtype=dt)
        outs = [x + x, x * 2.0, tf.exp(x), tf.sigmoid(x), tf.erf(x), tf.reduce_sum(x),
                tf.reduce_mean(x), tf.matmul(tf.constant([[1.0, 2.0, 3.0]], dtype=dt),
                                             tf.constant([[1.0], [1.0], [1.0]], dtype=dt)),
                tf.cumsum(x), tf.reduce_max(x)]
        with tf.Session() as sess:
            for v in sess.run(outs):
                assert np.asarray(v).dtype == dt.as_numpy_dtype


def test_math_ops_forwards_names_owned_elsewhere():
    with pytest.raises(AttributeError, match="no attribute 'not_a_math_function'"):
        math_ops.not_a_math_function  # noqa: B018
    cast = getattr(tf, "cast", None)
    if cast is None:
        with pytest.raises(AttributeError):
            math_ops.cast  # noqa: B018
    else:
        assert math_ops.cast is cast
