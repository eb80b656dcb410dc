"""Gradients of the array ops checked against TensorFlow itself.

A TensorFlow 2.21 subprocess (TRAINFLOW_TF_PYTHON; skipped when unset) builds each
expression in TF1 graph mode, takes `tf.gradients` of it with respect to the
listed placeholders and reports the gradient nodes (names, op types, inputs and
attrs other than Const values) and the gradient values. trainflow must build the
same nodes and compute the same values (IndexedSlices compared part by part).
"""
import textwrap

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.indexed_slices import IndexedSlicesValue

from tf_interop import ATTRS_OF_CODE, attrs_of, needs_tf, run_json

pytestmark = needs_tf

PRELUDE = """
x = tf.placeholder(tf.float32, [None, 3], name="x")
m = tf.placeholder(tf.float32, [2, 3], name="m")
t = tf.placeholder(tf.float32, [2, 3, 4], name="t")
v = tf.placeholder(tf.float32, [3], name="v")
q = tf.placeholder(tf.float32, [3, 3], name="q")
d = tf.placeholder(tf.float64, [2, 3], name="d")
u = tf.placeholder(tf.float32, [], name="u")
"""

FEEDS = {
    "x": np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], np.float32),
    "m": np.array([[1.5, -2., 3.], [0.25, 4., -1.]], np.float32),
    "t": np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11.5,
    "v": np.array([0.5, -1., 2.], np.float32),
    "q": np.arange(9, dtype=np.float32).reshape(3, 3) / 4,
    "d": np.array([[1., -2., 3.], [4., -5., 6.]]),
    "u": np.float32(1.5),
}

# (expression, the placeholders to differentiate by). grad_ys is cos(0, 1, 2, ...), so
# every output element gets its own weight.
CASES = [
    ("tf.identity(m)", "m"), ("tf.reshape(m, [-1])", "m"), ("tf.reshape(x, [-1])", "x"),
    ("tf.reshape(t, [6, 4])", "t"), ("tf.expand_dims(m, 1)", "m"),
    ("tf.squeeze(tf.expand_dims(x, 0))", "x"), ("tf.transpose(t)", "t"),
    ("tf.transpose(t, [1, 0, 2])", "t"), ("tf.concat([m, m * 2.], 0)", "m"),
    ("tf.concat([x, m], 0)", "x,m"), ("tf.concat([t, t], -1)", "t"),
    ("tf.concat([m] * 17, 1)", "m"), ("tf.stack([m, m], axis=1)", "m"),
    ("tf.unstack(m, axis=1)[2]", "m"), ("tf.split(t, 2, axis=2)[1]", "t"),
    ("tf.split(t, [1, -1], 1)[0]", "t"), ("tf.slice(t, [0, 1, 0], [-1, 2, 3])", "t"),
    ("x[1:, ::-1]", "x"), ("t[..., 1]", "t"), ("t[None, 1, :, tf.newaxis, -2]", "t"),
    ("t[::-1, 2:0:-1, ::-2]", "t"), ("tf.gather(m, [1, 0, 1])", "m"),
    ("tf.gather(x, [2, 2])", "x"), ("tf.gather(t, [3, 0], axis=2)", "t"),
    ("tf.gather(t, [[0, 2], [1, 1]], axis=1, batch_dims=1)", "t"),
    ("tf.gather_nd(t, [[0, 1], [1, 2]])", "t"), ("tf.gather_nd(m, [[1], [0], [1]])", "m"),
    ("tf.scatter_nd([[1], [1]], m, [3, 3])", "m"), ("tf.tile(m, [2, 3])", "m"),
    ("tf.tile(x, [1, 2])", "x"), ("tf.pad(m, [[1, 0], [0, 2]])", "m"),
    ("tf.pad(m, [[1, 1], [1, 1]], constant_values=-1.)", "m"),
    ("tf.pad(m, [[1, 1], [2, 2]], 'REFLECT')", "m"),
    ("tf.pad(m, [[2, 1], [3, 2]], 'SYMMETRIC')", "m"), ("tf.reverse(t, [0, -1])", "t"),
    ("tf.reverse_sequence(m, [1, 3], seq_axis=1, batch_axis=0)", "m"),
    ("tf.where(m > 0, m, -m * 3.)", "m"), ("tf.where([True, False], m, m * m)", "m"),
    ("tf.where_v2(m > 0, m, 0.)", "m"), ("tf.where_v2(v > 0, m, v)", "m,v"),
    ("tf.cast(m, tf.float64)", "m"), ("tf.cast(d, tf.float32)", "d"),
    ("tf.cast(tf.cast(m, tf.int32), tf.float32) + m", "m"), ("tf.fill([2, 2], u)", "u"),
    ("tf.broadcast_to(v, [2, 2, 3])", "v"), ("tf.diag(v)", "v"), ("tf.diag_part(q)", "q"),
    ("tf.identity_n([m, v])[1] * 2.", "m,v"), ("tf.stop_gradient(m) * m", "m"),
    ("tf.sparse_to_dense([[0, 1], [1, 0]], [2, 3], [u, u * 2.], default_value=u)", "u"),
    ("tf.placeholder_with_default(m, [2, 3]) * 3.", "m"),
    ("tf.matrix_diag(m)", "m"), ("tf.matrix_diag_part(t)", "t"),
    ("tf.matrix_set_diag(t, m)", "t,m"), ("tf.squeeze(t[:1], [0])", "t"),
    ("tf.concat([x, x], 1)", "x"), ("tf.gather(t, [1, 0], axis=-1)", "t"),
    ("tf.gather(x, [2, 0], axis=1)", "x"), ("tf.gather_nd(m, [[[1, 2]], [[0, 0]]])", "m"),
    ("tf.reverse_sequence(t, [2, 0], seq_axis=2, batch_axis=0)", "t"),
    ("tf.broadcast_to(x[:, :1], [3, 3])", "x"),
    # IndexedSlices gradients reaching concat, tile, reshape and identity
    ("tf.gather(tf.concat([m, v[None]], 0), [2, 0, 2])", "m,v"),
    ("tf.gather(tf.concat([m, q[:2] * 2.], 1), [1, 1])", "m"),
    ("tf.gather(tf.tile(m, [2, 1]), [3, 0])", "m"),
    ("tf.gather(tf.reshape(t, [6, 4]), [5, 1])", "t"), ("tf.gather(tf.identity(m), [1])", "m"),
    # gradients of gradients (StridedSliceGrad, MirrorPadGrad, ConcatOffset/Slice)
    ("tf.gradients(t[1, ::-1], t, grad_ys=t[0] * 2.)[0]", "t"),
    ("tf.gradients(tf.pad(q, [[1, 1], [2, 2]], 'REFLECT'), q, "
     "grad_ys=tf.reshape(tf.tile(q, [3, 3]), [9, 9])[:5, :7])[0]", "q"),
    ("tf.gradients(tf.concat([m, q], 0), q, grad_ys=tf.concat([q, q[:2]], 0) * 3.)[0]", "q"),
]

# Cases whose unused outputs get zeros: TF fills them with a ZerosLike op
# (gradients/zeros_like); trainflow's tf.gradients folds it to a Const (reported).

# TF 2.21 builds the V3 diagonal ops (MatrixDiagV3 ...) that trainflow does not have;
# the values still agree.
_GRAPH_DIFFERS = {"tf.matrix_diag(m)", "tf.matrix_diag_part(t)", "tf.matrix_set_diag(t, m)"}

SCRIPT = ATTRS_OF_CODE + textwrap.dedent("""
    import json, sys
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    spec = json.load(sys.stdin)
    results = []
    for expr, names in spec["cases"]:
        g = tf.Graph()
        with g.as_default():
            env = {"tf": tf, "np": np}
            exec(spec["prelude"], env)
            y = eval(expr, env)
            w = tf.cos(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype))
            before = len(g.get_operations())
            grads = tf.gradients(y, [env[n] for n in names.split(",")], grad_ys=w)
            nodes = [[node.name, node.op, list(node.input), attrs_of(node)]
                     for node in g.as_graph_def().node[before:]]
            feeds = {env[k]: np.array(v, dtype=env[k].dtype.as_numpy_dtype)
                     for k, v in spec["feeds"].items()}
            with tf.Session() as sess:
                values = sess.run([g for g in grads if g is not None], feeds)
            out, i = [], 0
            for grad in grads:
                if grad is None:
                    out.append(None)
                    continue
                value = values[i]
                i += 1
                if hasattr(value, "indices"):
                    out.append({"values": value.values.tolist(),
                                "indices": value.indices.tolist(),
                                "dense_shape": value.dense_shape.tolist()})
                else:
                    out.append(np.asarray(value).tolist())
            results.append({"nodes": nodes, "grads": out})
    print(json.dumps(results))
""")


@pytest.fixture(scope="module")
def tf_results():
    return run_json(SCRIPT, spec={"prelude": PRELUDE, "cases": CASES,
                                  "feeds": {k: np.asarray(v).tolist() for k, v in FEEDS.items()}})


def _build(expr, names):
    g = tf.Graph()
    with g.as_default():
        env = {"tf": tf, "np": np}
        exec(PRELUDE, env)  # noqa: S102 - test-defined code
        y = eval(expr, env)  # noqa: S307 - test-defined code
        w = tf.cos(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype))
        before = len(g.get_operations())
        grads = tf.gradients(y, [env[n] for n in names.split(",")], grad_ys=w)
        nodes = [[n.name, n.op, list(n.input), attrs_of(n)]
                 for n in g.as_graph_def().node[before:]]
        feeds = {env[k]: v.astype(env[k].dtype.as_numpy_dtype) for k, v in FEEDS.items()}
        with tf.Session() as sess:
            values = sess.run([gr for gr in grads if gr is not None], feeds)
    it = iter(values)
    return nodes, [None if gr is None else next(it) for gr in grads]


def _check_grad(got, want):
    if want is None:
        assert got is None
    elif isinstance(want, dict):
        assert isinstance(got, IndexedSlicesValue), type(got)
        np.testing.assert_allclose(got.values, want["values"], rtol=1e-6)
        assert got.indices.tolist() == want["indices"]
        assert got.dense_shape.tolist() == want["dense_shape"]
    else:
        assert not isinstance(got, IndexedSlicesValue)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _params():
    return [pytest.param(i, c, id=c[0]) for i, c in enumerate(CASES)]


@pytest.mark.parametrize("i,case", _params())
def test_gradient_graph_and_values_match_tf(tf_results, i, case):
    want = tf_results[i]
    nodes, grads = _build(*case)
    if case[0] not in _GRAPH_DIFFERS:
        assert nodes == want["nodes"]
    assert len(grads) == len(want["grads"])
    for got, expected in zip(grads, want["grads"]):
        _check_grad(got, expected)
