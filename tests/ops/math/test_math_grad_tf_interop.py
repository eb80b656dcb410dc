"""Math-op gradients checked against TensorFlow itself: the same graph, the same values.

A TensorFlow 2.21 subprocess (TRAINFLOW_TF_PYTHON; skipped when unset) builds each
expression in TF1 graph mode from the same placeholders, takes `tf.gradients` of it
(weighted by grad_ys = cos(0, 1, 2, ...), so every output element counts
differently) and reports every node it adds (name, op type, inputs) and the gradient
values. trainflow must add the same nodes in the same order and compute the same
values. Expressions starting with "2:" are differentiated twice (the gradient of the
weighted first gradient), which exercises the gradients of the gradient graphs.
"""
import textwrap

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

PLACEHOLDERS = {  # name: (shape, value)
    "a": ([2, 3], [[-1.3, -0.6, 0.4], [0.7, 1.1, -1.7]]),
    "p": ([2, 3], [[0.6, 1.7, 0.9], [1.3, 0.8, 1.9]]),
    "u": ([2, 3], [[-0.7, -0.3, 0.1], [0.2, 0.5, 0.6]]),
    "r": ([3], [0.9, -1.2, 1.4]),
    "c": ([2, 1], [[1.5], [-0.8]]),
    "d": ([None, 3], [[0.5, 1.5, -2.0], [1.0, -0.5, 2.5]]),
    "t": ([2, 3, 4], np.linspace(0.5, 2.0, 24).reshape(2, 3, 4).tolist()),
    "m": ([3, 4], np.linspace(-1.0, 1.0, 12).reshape(3, 4).tolist()),
    "s": ([], 1.25),
}

# (expression, placeholders to differentiate by)
CASES = [
    ("tf.negative(a) + tf.abs(a) + tf.sign(a) * a", "a"), ("tf.square(a)", "a"),
    ("tf.sqrt(p) + tf.rsqrt(p) + tf.reciprocal(p)", "p"), ("tf.exp(a) + tf.math.expm1(a)", "a"),
    ("tf.log(p) + tf.log1p(p)", "p"), ("tf.sin(a) * tf.cos(a) + tf.tan(u)", "a,u"),
    ("tf.asin(u) + tf.acos(u) + tf.atan(a)", "u,a"), ("tf.sinh(a) + tf.cosh(a)", "a"),
    ("tf.asinh(a) + tf.acosh(p + 1.) + tf.atanh(u)", "a,p,u"),
    ("tf.tanh(a) + tf.sigmoid(a)", "a"), ("tf.erf(a) + tf.math.erfc(a)", "a"),
    ("tf.lgamma(p) + tf.digamma(p)", "p"), ("tf.floor(a) + tf.ceil(a) + tf.round(a)", "a"),
    ("a + r", "a,r"), ("a - c", "a,c"), ("a * r", "a,r"), ("a * p", "a,p"),
    ("a / r", "a,r"), ("tf.div(a, p)", "a,p"), ("a * s", "a,s"), ("d * c", "d,c"),
    ("d + r", "d,r"), ("tf.pow(p, a)", "p,a"), ("tf.pow(p, s)", "p,s"),
    ("tf.maximum(a, r)", "a,r"), ("tf.minimum(a, c)", "a,c"),
    ("tf.squared_difference(a, r)", "a,r"), ("tf.atan2(a, p)", "a,p"),
    ("tf.floormod(a, p)", "a,p"), ("tf.floordiv(a, p) * a", "a,p"),
    ("tf.math.xlogy(a, p)", "a,p"), ("tf.math.xdivy(a, r)", "a,r"),
    ("tf.div_no_nan(a, p)", "a,p"), ("tf.math.multiply_no_nan(a, r)", "a,r"),
    ("tf.reduce_sum(t)", "t"), ("tf.reduce_sum(t, [0, 2])", "t"),
    ("tf.reduce_sum(d, 1, keepdims=True)", "d"), ("tf.reduce_mean(t, 1)", "t"),
    ("tf.reduce_mean(d)", "d"), ("tf.reduce_mean(d, 0)", "d"), ("tf.reduce_prod(a, 1)", "a"),
    ("tf.reduce_prod(d, 0)", "d"), ("tf.reduce_max(a, 1)", "a"),
    ("tf.reduce_min(t, [1], keepdims=True)", "t"),
    ("tf.math.reduce_euclidean_norm(a, 0)", "a"), ("tf.cumsum(a, 1, reverse=True)", "a"),
    ("tf.cumprod(p, 0, exclusive=True)", "p"), ("tf.matmul(a, m)", "a,m"),
    ("tf.matmul(m, a, transpose_a=True, transpose_b=True)", "m,a"),
    ("tf.matmul(t, m, transpose_b=True)", "t,m"),
    ("tf.add_n([a, p, a])", "a,p"), ("tf.segment_mean(m, [0, 0, 1])", "m"),
    ("tf.segment_prod(m, [0, 1, 1])", "m"), ("tf.unsorted_segment_sum(m, [1, -1, 1], 2)", "m"),
    ("tf.unsorted_segment_max(m, [1, 0, 1], 2)", "m"),
    ("tf.real(tf.complex(a, p) * tf.complex(p, a)) + tf.abs(tf.complex(a, r))", "a,p,r"),
    ("tf.imag(tf.exp(tf.complex(a, u)) / tf.complex(p, u))", "a,u,p"),
    ("2:tf.reduce_sum(tf.tanh(a) * tf.sigmoid(a) + tf.sqrt(p) * tf.rsqrt(p + a * a))", "a,p"),
    ("2:tf.reduce_mean(tf.square(t)) + tf.reduce_sum(t ** 3)", "t"),
    ("2:tf.reduce_prod(p, 1) + tf.reduce_max(a * a, 0)[:, None]", "p,a"),
    ("2:tf.matmul(tf.tanh(a), m) * tf.reduce_sum(a)", "a,m"),
    ("2:tf.lgamma(p + 2.) + tf.pow(p, a) + a / (a * a + 1.)", "p,a"),
]

_PLAIN_CASES = [tuple(c.values) if hasattr(c, "values") else c for c in CASES]

SCRIPT = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    sys.path.insert(0, sys.argv[1])
    from math_grad_interop_body import run_all
    print(json.dumps(run_all(tf)))
""")

# Shared by both sides; written next to the subprocess script.
BODY = textwrap.dedent('''
    import numpy as np

    def run_one(tf, placeholders, expr, wrt):
        g = tf.Graph()
        with g.as_default():
            ph = {n: tf.placeholder(tf.float64, s, name=n) for n, (s, _) in placeholders.items()}
            order = 2 if expr.startswith("2:") else 1
            y = eval(expr[2:] if order == 2 else expr, {"tf": tf}, dict(ph))
            xs = [ph[n] for n in wrt.split(",")]
            if order == 2:
                firsts = [f for f in tf.gradients(y, xs) if f is not None]
                weights = [tf.cos(tf.cast(tf.range(tf.size(f)), tf.float64)) for f in firsts]
                y = tf.add_n([tf.reduce_sum(tf.reshape(f, [-1]) * w)
                              for f, w in zip(firsts, weights)])
            feed = {ph[n]: np.asarray(v, np.float64) for n, (_, v) in placeholders.items()}
            with tf.Session() as sess:
                shape = sess.run(tf.shape(y), feed)
            weight = np.cos(np.arange(int(np.prod(shape)))).reshape(shape)
            before = len(g.get_operations())
            grads = tf.gradients(y, xs, grad_ys=tf.constant(weight, name="weights"))
            nodes = [[op.name, op.type, [t.name for t in op.inputs],
                      sorted(c.name for c in op.control_inputs)]
                     for op in g.get_operations()[before:]]
            with tf.Session() as sess:
                values = sess.run([t for t in grads if t is not None], feed)
        values = iter(values)
        return {"nodes": nodes,
                "grads": [None if t is None else np.asarray(next(values)).tolist()
                          for t in grads]}

    def run_all(tf):
        from test_cases import PLACEHOLDERS, CASES
        return [run_one(tf, PLACEHOLDERS, e, w) for e, w in CASES]
''')


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("math_grad_interop")
    (folder / "math_grad_interop_body.py").write_text(BODY)
    (folder / "test_cases.py").write_text(
        f"import numpy as np\nPLACEHOLDERS = {PLACEHOLDERS!r}\nCASES = {_PLAIN_CASES!r}\n")
    return run_json(SCRIPT, str(folder), timeout=600)


def _run_trainflow(expr, wrt):
    namespace = {}
    exec(BODY, namespace)  # noqa: S102 - the same code the TF side runs
    placeholders = {n: (s, np.asarray(v).tolist()) for n, (s, v) in PLACEHOLDERS.items()}
    return namespace["run_one"](tf, placeholders, expr, wrt)


def _without_grad_ys_identities(nodes):
    """Drops the Identity that tf.gradients may wrap a given grad_ys in
    (`gradients/grad_ys_0`), pointing its consumers at its input: that node belongs
    to the gradients core, not to the math gradients compared here."""
    alias = {}
    out = []
    for name, op_type, inputs, controls in nodes:
        inputs = [alias.get(i, i) for i in inputs]
        controls = sorted(alias.get(c + ":0", c + ":0")[:-2] for c in controls)
        if op_type == "Identity" and name.rsplit("/", 1)[-1].startswith("grad_ys_"):
            alias[name + ":0"] = inputs[0]
            continue
        out.append([name, op_type, inputs, controls])
    return out


@pytest.mark.parametrize("expr,wrt", CASES)
def test_gradient_graph_and_values_match_tf(expr, wrt, tf_results):
    want = tf_results[_PLAIN_CASES.index((expr, wrt))]
    got = _run_trainflow(expr, wrt)
    got_nodes = _without_grad_ys_identities(got["nodes"])
    want_nodes = _without_grad_ys_identities(want["nodes"])
    assert [n[:2] for n in got_nodes] == [n[:2] for n in want_nodes]
    assert got_nodes == want_nodes
    assert [g is None for g in got["grads"]] == [w is None for w in want["grads"]]
    for g, w in zip(got["grads"], want["grads"]):
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
