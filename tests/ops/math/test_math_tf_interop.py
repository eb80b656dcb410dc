"""Math graph building checked against TensorFlow itself.

Each expression is built in a fresh graph by trainflow and, in a subprocess, by
TensorFlow 2.21 in TF1 mode (TRAINFLOW_TF_PYTHON names its python; skipped
when unset). The ops created (names and types), the result's dtype, static
shape and value, and for bad inputs the exception class and message, must
agree, and so must every new node's inputs and attrs (Const values aside).
"""
import json
import textwrap

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

# Placeholders every expression may use, and the values fed to them.
PRELUDE = """
f32 = tf.placeholder(tf.float32, [2, 3], name="f32")
g32 = tf.placeholder(tf.float32, [2, 3], name="g32")
f64 = tf.placeholder(tf.float64, [2, 3], name="f64")
i32 = tf.placeholder(tf.int32, [2, 3], name="i32")
j32 = tf.placeholder(tf.int32, [2, 3], name="j32")
i64 = tf.placeholder(tf.int64, [2, 3], name="i64")
u8 = tf.placeholder(tf.uint8, [2, 3], name="u8")
bo = tf.placeholder(tf.bool, [2, 3], name="bo")
m34 = tf.placeholder(tf.float32, [3, 4], name="m34")
b234 = tf.placeholder(tf.float32, [2, 3, 4], name="b234")
unk = tf.placeholder(tf.float32, None, name="unk")
part = tf.placeholder(tf.float32, [None, 3], name="part")
ones = lambda *shape: tf.constant(np.ones(shape, np.float32))
"""

FEEDS = {
    "f32": np.array([[1.5, -2.0, 3.0], [0.25, 4.0, -1.0]], np.float32),
    "g32": np.array([[2.0, 1.0, -0.5], [4.0, 2.0, 8.0]], np.float32),
    "f64": np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float64),
    "i32": np.array([[7, -7, 5], [-5, 3, 9]], np.int32),
    "j32": np.array([[2, 2, -3], [-3, 4, 4]], np.int32),
    "i64": np.array([[7, -7, 5], [-5, 3, 9]], np.int64),
    "u8": np.array([[3, 200, 5], [7, 9, 100]], np.uint8),
    "bo": np.array([[True, False, True], [False, False, True]]),
    "m34": np.arange(12, dtype=np.float32).reshape(3, 4) / 4,
    "b234": np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 8,
    "unk": np.array([1.0, -2.0, 3.0], np.float32),
    "part": np.array([[1.0, 2.0, 3.0]], np.float32),
}

# Expressions whose graph (op names and types), dtype, shape and value must match TF.
EXPRESSIONS = [
    "tf.add(f32, g32)", "f32 + g32", "2.0 + f32", "f32 + 2", "f32 - 1.0", "1.0 - f32",
    "f32 * g32", "3 * f32", "f64 * 2.0", "2.0 * f64", "tf.multiply(f32, 2.0)",
    "tf.subtract(f32, g32)", "f32 / g32", "1.0 / f32", "i32 / j32", "u8 / u8",
    "tf.divide(f32, g32)", "tf.divide(i32, j32)", "tf.div(f32, g32)", "tf.div(i32, j32)",
    "tf.truediv(i64, i64)", "tf.realdiv(f32, g32)", "f32 // g32", "i32 // j32",
    "tf.floordiv(i32, j32)", "tf.floor_div(i32, j32)", "tf.floormod(i32, j32)",
    "tf.mod(f32, g32)", "i32 % j32", "f32 % 2.0", "tf.truncatediv(i32, j32)",
    "tf.truncatemod(i32, j32)", "tf.pow(g32, f32)", "g32 ** 2.0", "2.0 ** f32",
    "-f32", "tf.negative(f32)", "tf.negative(i32)", "abs(f32)",
    "tf.abs(i32)", "tf.sign(f32)", "tf.square(f32)", "tf.sqrt(g32 * g32)", "tf.rsqrt(g32 * g32)",
    "tf.exp(f32)", "tf.log(g32 * g32)", "tf.log1p(g32 * g32)", "tf.math.expm1(f32)",
    "tf.sin(f32)", "tf.cos(f32)", "tf.tan(f32)", "tf.tanh(f32)", "tf.sigmoid(f32)",
    "tf.erf(f32)", "tf.floor(f32)", "tf.ceil(f32)", "tf.round(f32 * 0.5)", "tf.round(i32)",
    "tf.rint(f32 * 0.5)", "tf.reciprocal(f32)", "tf.maximum(f32, g32)", "tf.minimum(f32, 0.0)",
    "tf.squared_difference(f32, g32)", "tf.atan2(f32, g32)", "tf.math.xlogy(f32, g32 * g32)",
    "tf.div_no_nan(f32, g32)", "tf.math.reciprocal_no_nan(f32)", "tf.lgamma(g32 * g32)",
    "tf.equal(f32, g32)", "tf.not_equal(i32, 5)", "tf.less(f32, g32)", "f32 < g32",
    "f32 <= 1.5", "f32 > g32", "1 < f32", "f32 >= g32", "tf.greater_equal(i32, j32)",
    "tf.logical_and(bo, bo)", "bo & bo", "bo | bo", "bo ^ bo", "~bo", "tf.logical_xor(bo, bo)",
    "tf.logical_not(bo)", "tf.logical_or(bo, tf.logical_not(bo))", "i32 & j32", "i32 | j32",
    "i32 ^ j32", "~i32", "tf.is_nan(f32)", "tf.is_inf(f32 / 0.0)", "tf.is_finite(f32)",
    "tf.matmul(f32, m34)", "f32 @ m34", "tf.matmul(f32, g32, transpose_b=True)",
    "tf.matmul(f32, g32, transpose_a=True)", "tf.matmul(b234, ones(4, 2))",
    "tf.matmul(b234, b234, adjoint_b=True)", "tf.matmul(b234, b234, transpose_a=True)",
    "tf.matmul(ones(5, 2, 3), m34)",
    "tf.add_n([f32, g32])", "tf.add_n([f32, g32, f32])", "tf.add_n([f32])",
    "tf.add_n([f32], name='named')", "tf.accumulate_n([f32, g32])",
    "tf.reduce_sum(f32)", "tf.reduce_sum(f32, 1)", "tf.reduce_sum(f32, axis=[0, 1])",
    "tf.reduce_sum(f32, reduction_indices=[1], keep_dims=True)",
    "tf.reduce_sum(f32, -1, keepdims=True)", "tf.reduce_sum(i32, 0)", "tf.reduce_sum(u8)",
    "tf.reduce_mean(f32)", "tf.reduce_mean(i32, 1)", "tf.reduce_mean(u8)",
    "tf.reduce_mean(f32, axis=tf.constant(1, tf.int64))", "tf.reduce_max(f32, 0)",
    "tf.reduce_min(f32, [1])", "tf.reduce_prod(f32, 1, keep_dims=True)", "tf.reduce_all(bo)",
    "tf.reduce_any(bo, 1)", "tf.reduce_logsumexp(f32, 1)", "tf.reduce_logsumexp(f32)",
    "tf.reduce_logsumexp(f32, 0, keepdims=True)", "tf.math.reduce_std(f32, 0)",
    "tf.math.reduce_variance(f32)", "tf.math.reduce_euclidean_norm(f32, 1)",
    "tf.reduce_sum(part)", "tf.reduce_sum(part, 1)", "tf.reduce_sum(unk)",
    "tf.reduce_sum(unk, keepdims=True)", "tf.reduce_sum(f32, tf.placeholder(tf.int32))",
    "tf.reduce_sum(f32, tf.placeholder_with_default([1], [None]), keepdims=True)",
    "tf.argmax(f32)", "tf.argmax(f32, 1)", "tf.argmin(f32, axis=1)",
    "tf.argmax(f32, dimension=1)", "tf.argmax(f32, 1, output_type=tf.int32)",
    "tf.arg_max(f32, 1)", "tf.cumsum(f32)", "tf.cumsum(f32, 1, exclusive=True, reverse=True)",
    "tf.cumprod(i32, axis=-1, exclusive=True)", "tf.count_nonzero(f32)",
    "tf.count_nonzero(i32, 1, keepdims=True, dtype=tf.int32)", "tf.count_nonzero(bo, 0)",
    "tf.scalar_mul(2.0, f32)", "tf.tensordot(f32, m34, 1)",
    "tf.tensordot(b234, ones(4, 3, 5), [[1, 2], [1, 0]])",
    "tf.tensordot(f32, g32, 0)", "tf.tensordot(b234, m34, [[1], [0]])",
    "tf.qr(m34)[1]", "tf.qr(m34, full_matrices=True)[0]", "tf.qr(b234)[0]",
    "tf.unsorted_segment_sum(f32, [1, 0], 3)", "tf.segment_sum(f32, [0, 0])",
    "tf.unsorted_segment_max(i32, [[0, 1, 1], [0, 2, 1]], 3)",
    "tf.add(tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [2, 1, None]))",
    "tf.add(tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [1]))",
    "tf.add(tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [3]))",
    "tf.add(unk, f32)",
]

# Expressions that must raise the same exception class with the same message.
ERRORS = [
    "i32 * 2.5", "2.5 * i32", "f32 + f64", "tf.add(f32, f64)", "tf.add(2.0, f64)",
    "tf.add(i32, 2.5)", "tf.add(bo, bo)", "tf.sqrt(i32)",
    "tf.matmul(f32, tf.constant(np.ones([3, 2])))",
    "f32 / f64", "tf.truediv(bo, bo)", "f32 // f64", "f32 & f32", "~f32",
    "tf.matmul(f32, f32, transpose_a=True, adjoint_a=True)", "tf.add_n([f32, f64])",
    "tf.add_n([])", "tf.reduce_sum(f32, axis=1, reduction_indices=[1])",
    "tf.reduce_sum(f32, keepdims=True, keep_dims=True)", "tf.reduce_sum(f32, axis=1.0)",
    "tf.reduce_sum(bo)", "tf.reduce_all(f32)", "tf.logical_and(f32, f32)",
    "tf.scalar_mul(tf.constant([2.0]), f32)", "tf.is_nan(i32)", "tf.maximum(bo, bo)",
    "tf.less(tf.constant(['a']), tf.constant(['b']))", "tf.negative(u8)", "tf.argmax(bo, 1.5)",
    "tf.matmul(tf.constant([True]), tf.constant([True]))",
]

# Expressions whose shape error must match TF's message up to " for '{{node".
SHAPE_ERRORS = [
    "f32 @ f32", "tf.matmul(f32, ones(4, 4))", "tf.matmul(ones(3), m34)",
    "tf.matmul(ones(5, 2, 3), ones(4, 3, 4))", "f32 + ones(4)", "f32 + [1.0, 2.0]",
    "tf.add_n([f32, ones(3)])", "tf.reduce_sum(f32, axis=2)", "tf.reduce_sum(f32, axis=-3)",
    "tf.argmax(f32, 2)", "tf.reduce_sum(f32, [[1]])",
]

# Expressions that build but fail at run time: class and message (before "\n\t [[").
RUN_ERRORS = [
    "tf.floordiv(i32, j32 * 0)", "tf.floormod(i32, j32 * 0)",
    "tf.reduce_sum(f32, tf.placeholder_with_default([1, 1], [None]))",
    "tf.reduce_sum(f32, tf.placeholder_with_default([5], [None]))",
    "tf.argmax(f32, tf.placeholder_with_default(5, []))",
    "tf.argmax(tf.placeholder_with_default(ones(0), [None]))",
    "tf.cumsum(f32, tf.placeholder_with_default(5, []))",
    "tf.matmul(tf.placeholder_with_default(f32, [None, None]), ones(4, 2))",
    "tf.add_n([tf.placeholder_with_default(f32, None), ones(3)])",
]

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    spec = json.load(sys.stdin)
    feeds = {k: np.array(v["value"], dtype=v["dtype"]) for k, v in spec["feeds"].items()}
    out = {}
    for kind in ("ok", "errors", "shape_errors", "run_errors"):
        out[kind] = [RUN(expr, kind) for expr in spec[kind]]
    print(json.dumps(out))
""")


def run_expression(tf_mod, prelude, feeds, expr, kind):
    """Builds `expr` in a fresh graph; returns a JSON-able summary (shared with TF)."""
    import numpy as np  # noqa: F811 - also runs inside the TF subprocess
    g = tf_mod.Graph()
    with g.as_default():
        env = {"tf": tf_mod, "np": np}
        exec(prelude, env)  # noqa: S102 - test-defined code
        before = len(g.get_operations())
        try:
            t = eval(expr, env)  # noqa: S307 - test-defined code
        except Exception as e:  # noqa: BLE001 - the exception is the result
            return {"error": [type(e).__name__, str(e)]}
        ops = [[op.name, op.type] for op in g.get_operations()[before:]]
        from google.protobuf import text_format
        attrs = {}
        for node in g.as_graph_def().node[before:]:
            attrs[node.name] = {k: text_format.MessageToString(v, as_one_line=True)
                                for k, v in node.attr.items()
                                if k != "value" and not k.startswith("_")}
            attrs[node.name]["inputs"] = list(node.input)
        res = {"ops": ops, "attrs": attrs, "name": t.name, "dtype": t.dtype.name,
               "shape": None if t.shape.rank is None else
               [d if isinstance(d, int) or d is None else d.value for d in t.shape.as_list()]}
        feed = {env[k]: v for k, v in feeds.items()}
        try:
            with tf_mod.Session() as sess, np.errstate(all="ignore"):
                value = sess.run(t, feed)
        except Exception as e:  # noqa: BLE001
            message = getattr(e, "message", str(e)).split("\n\t [[")[0].strip()
            res["run_error"] = [type(e).__name__, message.split("\n")[-1]]
            return res
        value = np.asarray(value)
        res["value"] = value.astype(np.float64).tolist() if value.dtype.kind in "fc" or \
            value.dtype.itemsize == 2 else value.tolist()
        return res


def _tf_results():
    import inspect
    source = inspect.getsource(run_expression)
    script = SCRIPT.replace("RUN(expr, kind)",
                            "run_expression(tf, spec['prelude'], feeds, expr, kind)")
    script = source + "\n" + script
    spec = {"prelude": PRELUDE, "ok": EXPRESSIONS, "errors": ERRORS,
            "shape_errors": SHAPE_ERRORS, "run_errors": RUN_ERRORS,
            "feeds": {k: {"value": v.tolist(), "dtype": v.dtype.name} for k, v in FEEDS.items()}}
    return run_json(script, spec=spec)


pytestmark = needs_tf


@pytest.fixture(scope="module")
def tf_results():
    return _tf_results()


def _ours(expr, kind):
    return json.loads(json.dumps(run_expression(tf, PRELUDE, FEEDS, expr, kind)))


@pytest.mark.parametrize("i,expr", list(enumerate(EXPRESSIONS)))
def test_graph_and_value_match_tf(tf_results, i, expr):
    want = tf_results["ok"][i]
    got = _ours(expr, "ok")
    assert "error" not in want, want
    assert "error" not in got, got
    assert got["ops"] == want["ops"]
    assert got["attrs"] == want["attrs"]
    assert (got["name"], got["dtype"], got["shape"]) == (want["name"], want["dtype"],
                                                         want["shape"])
    assert ("run_error" in got) == ("run_error" in want)
    if "value" in want:
        np.testing.assert_allclose(np.asarray(got["value"], dtype=float),
                                   np.asarray(want["value"], dtype=float), rtol=1e-6,
                                   atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("i,expr", list(enumerate(ERRORS)))
def test_error_matches_tf(tf_results, i, expr):
    want = tf_results["errors"][i]
    got = _ours(expr, "errors")
    assert got.get("error") == want["error"]


@pytest.mark.parametrize("i,expr", list(enumerate(SHAPE_ERRORS)))
def test_shape_error_matches_tf(tf_results, i, expr):
    want = tf_results["shape_errors"][i]["error"]
    got = _ours(expr, "shape_errors")["error"]
    assert got[0] == want[0] == "ValueError"
    assert got[1].split(" for '{{node")[0] == want[1].split(" for '{{node")[0]


@pytest.mark.parametrize("i,expr", list(enumerate(RUN_ERRORS)))
def test_run_error_matches_tf(tf_results, i, expr):
    want = tf_results["run_errors"][i]["run_error"]
    got = _ours(expr, "run_errors")["run_error"]
    assert got[0] == want[0]
    # TF's optimizer may reorder AddN inputs, so its "Input 0: ..." detail can differ.
    assert want[1].split("  Input 0:")[0] in got[1], (got[1], want[1])
