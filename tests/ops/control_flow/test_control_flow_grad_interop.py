"""Control-flow gradients checked against TensorFlow 2.21 (TF1 mode) in a subprocess
(TRAINFLOW_TF_PYTHON names its python; skipped when unset): the gradient ops of a
cond match TensorFlow's, and TensorFlow runs GraphDefs holding trainflow's cond and
functional-If gradients to the same values."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.function_graph import FuncGraph

from tf_interop import needs_tf, run_graph_def, run_json

pytestmark = needs_tf

_COND_SNIPPET = """
x = tf.placeholder(tf.float32, [2], name="x")
p = tf.placeholder(tf.bool, [], name="p")
q = tf.placeholder(tf.bool, [], name="q")
y = tf.cond(p, lambda: tf.cond(q, lambda: x * 3.0, lambda: tf.exp(x)), lambda: tf.sin(x) * x)
grad = tf.gradients(y, x)[0]
"""
_FEEDS = [{"p": p, "q": q} for p in (True, False) for q in (True, False)]


def _describe(graph):
    """(name, type, inputs, control inputs) of the gradient ops, with the zeros that
    fill the untaken side of a Switch (built differently by the two) as ZEROS."""
    def is_zeros_helper(name):
        base = name.split(":")[0]
        return base.endswith("zeros_like") or base.split("/")[-1].split("_")[0] in (
            "zeros", "Switch", "Identity", "Shape") and base.count("/") == 1
    out = {}
    for op in graph.get_operations():
        if not op.name.startswith("gradients/") or is_zeros_helper(op.name):
            continue
        if op.type == "Const":
            continue
        inputs = ["ZEROS" if is_zeros_helper(t.name) else t.name for t in op.inputs]
        out[op.name] = [op.type, inputs, sorted(c.name for c in op.control_inputs)]
    return out


def _tf_cond_gradient():
    script = f"""
import json
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.disable_control_flow_v2()
exec({_COND_SNIPPET!r})
{_describe_source()}
with tf.Session() as sess:
    values = [sess.run(grad, {{x: [0.5, 1.5], p: f["p"], q: f["q"]}}).tolist()
              for f in {_FEEDS!r}]
print(json.dumps({{"ops": _describe(tf.get_default_graph()), "values": values}}))
"""
    return run_json(script)


def _describe_source():
    import inspect
    return inspect.getsource(_describe)


def test_cond_gradient_ops_and_values_match_tensorflow():
    theirs = _tf_cond_gradient()
    with tf.Graph().as_default() as g:
        scope = {"tf": tf}
        exec(_COND_SNIPPET, scope)  # noqa: S102 - the snippet above
        ours = _describe(g)
        with tf.Session() as sess:
            values = [sess.run(scope["grad"], {scope["x"]: [0.5, 1.5], scope["p"]: f["p"],
                                               scope["q"]: f["q"]}) for f in _FEEDS]
    for name, description in theirs["ops"].items():
        assert ours.get(name) == description, name
    np.testing.assert_allclose(values, theirs["values"], rtol=1e-6)


def _branch(name, fn):
    fg = FuncGraph(name, tf.get_default_graph())
    with fg.as_default():
        a = fg.add_input(tf.float32, tf.TensorShape([2]), "a")
        fg.outputs = [fn(a)]
    return fg


def test_tensorflow_runs_exported_cond_and_if_gradients():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        y = tf.cond(p, lambda: x * x, lambda: tf.sin(x) * 2.0)
        if_op = apply_op("StatelessIf", cond=p, input=[x], Tout=[tf.float32],
                         then_branch=_branch("then_fn", lambda a: a * a * a),
                         else_branch=_branch("else_fn", tf.cos), output_shapes=[[2]])
        grads = tf.gradients([y, if_op.outputs[0]], x) + tf.gradients(if_op.outputs[0], x)
        fetches = [t.name for t in grads]
        feeds = [{"x:0": [0.5, 1.5], "p:0": True}, {"x:0": [0.5, 1.5], "p:0": False}]
        with tf.Session() as sess:
            ours = [[v.tolist() for v in sess.run(fetches, {x: f["x:0"], p: f["p:0"]})]
                    for f in feeds]
        theirs = run_graph_def(g.as_graph_def(), fetches, feeds)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    xv = np.array([0.5, 1.5])
    np.testing.assert_allclose(ours[0][1], 3 * xv ** 2, rtol=1e-6)
    np.testing.assert_allclose(ours[1][1], -np.sin(xv), rtol=1e-6)


_V2_SNIPPETS = {
    "cond_v2": """
x = tf.placeholder(tf.float32, [2], name="x")
w = tf.constant([0.5, -0.25], name="w")
p = tf.placeholder(tf.bool, [], name="p")
y = tf.identity(tf.cond(p, lambda: tf.sin(x) * x + w, lambda: tf.exp(x) * w), name="y")
feeds = [{"x:0": [0.5, 1.5], "p:0": True}, {"x:0": [0.5, 1.5], "p:0": False}]
""",
    "while_v2_with_cond_v2": """
x = tf.placeholder(tf.float32, [2], name="x")
w = tf.constant([0.5, -0.25], name="w")
def body(i, a):
    return i + 1, tf.cond(tf.reduce_sum(a) > 3.0, lambda: a * 0.5, lambda: tf.sin(a) * x + w)
y = tf.identity(tf.while_loop(lambda i, a: i < 4, body, [0, x])[1], name="y")
feeds = [{"x:0": [0.5, 1.5]}, {"x:0": [2.0, 1.5]}]
""",
}


def _tf_v2_forward_and_gradients(snippet):
    script = f"""
import json
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.enable_control_flow_v2()
g = tf.Graph()
with g.as_default():
    exec({snippet!r})
    graph_def = g.as_graph_def()
    grads = tf.gradients(y, [x, w])
    with tf.Session() as sess:
        values = [[v.tolist() for v in sess.run(grads, f)] for f in feeds]
print(json.dumps({{"graph_def": graph_def.SerializeToString().hex(), "values": values,
                  "feeds": feeds}}))
"""
    return run_json(script)


@pytest.mark.parametrize("key", sorted(_V2_SNIPPETS))
def test_gradients_of_tensorflow_functional_control_flow(key):
    """TensorFlow's If / While ops (cond_v2, while_v2), imported and differentiated by
    trainflow, give TensorFlow's gradients."""
    from trainflow._src.protos import graph_pb2
    spec = _tf_v2_forward_and_gradients(_V2_SNIPPETS[key])
    graph_def = graph_pb2.GraphDef.FromString(bytes.fromhex(spec["graph_def"]))
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        assert {op.type for op in g.get_operations()} & {"StatelessIf", "StatelessWhile"}
        x, w, y = (g.get_tensor_by_name(n) for n in ("x:0", "w:0", "y:0"))
        grads = tf.gradients(y, [x, w])
        with tf.Session() as sess:
            ours = [[v.tolist() for v in sess.run(grads, f)] for f in spec["feeds"]]
    np.testing.assert_allclose(ours, spec["values"], rtol=1e-5, atol=1e-6)
