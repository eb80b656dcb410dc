"""Control flow, assertions and printing checked against TensorFlow itself.

Each snippet is built by trainflow and, in a subprocess, by TensorFlow 2.21 in
TF1 mode (TRAINFLOW_TF_PYTHON names its python; skipped when unset). The ops the
snippet creates (names, types, inputs, control inputs), the fetched values and
run-time error messages must agree. TensorFlow also runs GraphDefs exported by
trainflow, While ops and their FunctionDefs included.
"""
import json
import sys

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.graph_export import to_function_defs

from tf_interop import needs_tf, run_graph_def, run_json

pytestmark = needs_tf

# name -> (code defining `out` and `feeds`, op-name prefixes compared)
SNIPPETS = {
    "cond": ("""
p = tf.placeholder(tf.bool, [], name="p")
x = tf.constant(1.0, name="x")
y = tf.constant([1, 2], name="y")
out = tf.cond(p, lambda: (x + 1.0, {"a": y}), lambda: (x * 2.0, {"a": y + 1}))
feeds = [{"p": True}, {"p": False}]
""", ("cond",)),
    "cond_nested": ("""
p = tf.placeholder(tf.bool, [], name="p")
q = tf.placeholder(tf.bool, [], name="q")
x = tf.constant(10, name="x")
out = tf.cond(p, lambda: tf.cond(q, lambda: x + 1, lambda: x + 2), lambda: x - 1)
feeds = [{"p": True, "q": True}, {"p": True, "q": False}, {"p": False, "q": True}]
""", ("cond",)),
    "cond_ops_and_consts": ("""
p = tf.placeholder(tf.bool, [], name="p")
a = tf.constant(3.0, name="a")
b = tf.constant(4.0, name="b")
out = [tf.cond(p, lambda: a, lambda: b), tf.cond(p, tf.no_op, tf.no_op),
       tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))]
feeds = [{"p": True}, {"p": False}]
""", ("cond",)),
    "case": ("""
a = tf.placeholder(tf.bool, [], name="a")
b = tf.placeholder(tf.bool, [], name="b")
out = tf.case([(a, lambda: tf.constant(1)), (b, lambda: tf.constant(2))],
              default=lambda: tf.constant(3))
feeds = [{"a": True, "b": True}, {"a": False, "b": True}, {"a": False, "b": False}]
""", ("case",)),
    "case_exclusive": ("""
a = tf.placeholder(tf.bool, [], name="a")
b = tf.placeholder(tf.bool, [], name="b")
out = tf.case([(a, lambda: tf.constant(1)), (b, lambda: tf.constant(2))],
              default=lambda: tf.constant(3), exclusive=True)
feeds = [{"a": False, "b": True}, {"a": True, "b": True}]
""", ("case",)),
    "assert": ("""
x = tf.placeholder(tf.float32, [None], name="x")
i = tf.placeholder(tf.int32, [None], name="i")
guarded = tf.Assert(tf.reduce_all(x > 0.0), ["x must be positive", x], summarize=2)
plain = tf.Assert(tf.reduce_all(i > 0), ["i must be positive", i])
out = [guarded, plain]
feeds = [{"x": [1.0, 2.0], "i": [1]}, {"x": [1.5, -2.25, 0.333], "i": [1]},
         {"x": [1.0], "i": [3, 0, -1, 4]}]
""", ("Assert",)),
    "assert_equal": ("""
x = tf.placeholder(tf.float32, [None], name="x")
out = tf.assert_equal(x, 1.0, message="eq")
feeds = [{"x": [1.0, 1.0]}, {"x": [1.0, 7.0]}]
""", ("assert",)),
    "assert_sign_and_rank": ("""
x = tf.placeholder(tf.float32, [None], name="x")
out = [tf.assert_positive(x), tf.assert_rank(x, 1)]
feeds = [{"x": [1.0, 2.0]}, {"x": [-1.0, 2.0]}]
""", ("assert",)),
    "assert_less_int": ("""
x = tf.placeholder(tf.int32, [None], name="x")
out = tf.assert_less(x, 5, summarize=1)
feeds = [{"x": [1, 2]}, {"x": [1, 7]}]
""", ("assert",)),
    "check_numerics": ("""
x = tf.placeholder(tf.float32, [None], name="x")
out = tf.check_numerics(x * 2.0, "doubled")
feeds = [{"x": [1.0]}, {"x": [float("nan")]}, {"x": [float("inf"), float("nan")]}]
""", ("Check", "mul")),
    "print_ops": ("""
x = tf.placeholder(tf.int32, [None], name="x")
out = tf.Print(x, [x, "s"], message="m", first_n=2, summarize=2)
pv2 = tf.print("v:", x, {"k": x}, summarize=1)
feeds = [{"x": [1, 2, 3]}]
""", ("Print", "StringFormat")),
}

TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
sys.path.insert(0, sys.argv[1])
from trainflow_interop_common import run_snippets
print(json.dumps(run_snippets(tf, json.loads(sys.stdin.read()))))
"""


def run_snippets(tf_module, snippets):
    """Builds and runs each snippet with `tf_module`; returns JSON-able results."""
    results = {}
    for key, (code, prefixes) in snippets.items():
        g = tf_module.Graph()
        entry = {}
        with g.as_default():
            env = {"tf": tf_module}
            exec(code, env)  # noqa: S102 - test snippets
            entry["ops"] = [[op.name, op.type, [t.name for t in op.inputs],
                             sorted(c.name for c in op.control_inputs)]
                            for op in g.get_operations()
                            if op.name.startswith(tuple(prefixes))]
            runs = []
            with tf_module.Session() as sess:
                for feed in env["feeds"]:
                    fd = {g.get_tensor_by_name(k + ":0"): v for k, v in feed.items()}
                    try:
                        value = sess.run(env["out"], fd)
                        runs.append({"value": _jsonable(value)})
                    except Exception as e:  # noqa: BLE001 - the error is the result
                        msg = str(e)
                        for marker in ("assertion failed", "Tensor had"):
                            if marker in msg:
                                start = msg.rfind("\n", 0, msg.find(marker)) + 1
                                msg = msg[start:].split("\n")[0]
                        runs.append({"error": type(e).__name__, "message": msg})
            entry["runs"] = runs
        results[key] = entry
    return results


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None:
        return None
    arr = np.asarray(value)
    if arr.dtype == object:
        return [x.decode() if isinstance(x, bytes) else str(x) for x in arr.reshape(-1)]
    return arr.tolist()


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    helper_dir = tmp_path_factory.mktemp("interop")
    (helper_dir / "trainflow_interop_common.py").write_text(
        "import numpy as np\n" + _source_of(run_snippets) + "\n\n" + _source_of(_jsonable))
    return run_json(TF_SCRIPT, str(helper_dir), spec=SNIPPETS)


def _source_of(fn):
    import inspect
    return inspect.getsource(fn)


@pytest.fixture(scope="module")
def our_results():
    return json.loads(json.dumps(run_snippets(tf, SNIPPETS)))


@pytest.mark.parametrize("key", sorted(SNIPPETS))
def test_graph_matches_tensorflow(tf_results, our_results, key):
    assert our_results[key]["ops"] == tf_results[key]["ops"]


@pytest.mark.parametrize("key", sorted(SNIPPETS))
def test_values_and_errors_match_tensorflow(tf_results, our_results, key, capsys):
    theirs, ours = tf_results[key]["runs"], our_results[key]["runs"]
    assert len(ours) == len(theirs)
    for got, want in zip(ours, theirs):
        if "error" in want:
            assert (got.get("error"), got.get("message")) == (want["error"], want["message"])
        else:
            assert "error" not in got, got
            assert got["value"] == want["value"]


def test_tensorflow_runs_exported_conds_and_while_loops():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(2.0, name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        p = tf.placeholder(tf.bool, [], name="p")

        def body(i, a):
            return i + 1, tf.cond(a > 100.0, lambda: a, lambda: a * x)

        i, a = tf.while_loop(lambda i, a: i < n, body, [0, 1.0], maximum_iterations=20)
        j = tf.while_loop(lambda j: j < 3,
                          lambda j: tf.while_loop(lambda k: k < 2, lambda k: k + 1, [j]) + 1,
                          [0])
        c = tf.cond(p, lambda: a + 1.0, lambda: a - 1.0)
        gd = g.as_graph_def()
        names = {f.signature.name for f in gd.library.function}
        for op in g.get_operations():
            for fdef in to_function_defs(op):
                if fdef.signature.name not in names:
                    names.add(fdef.signature.name)
                    gd.library.function.add().CopyFrom(fdef)
        fetches = [i.name, a.name, j.name, c.name]
        for feeds in ({"n:0": 12, "p:0": True}, {"n:0": 3, "p:0": False}):
            with tf.Session() as sess:
                ours = sess.run(fetches, {n: feeds["n:0"], p: feeds["p:0"]})
            (theirs,) = run_graph_def(gd, fetches, [feeds])
            np.testing.assert_allclose(np.array(ours, dtype=float), np.array(theirs, dtype=float))


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


def _tf_while_v2_graph():
    script = r"""
import json
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.enable_control_flow_v2()
g = tf.Graph()
with g.as_default():
    x = tf.constant(3.0, name="x")
    def body(i, a):
        a = tf.cond(a > 50.0, lambda: a - 1.0, lambda: a * x)
        inner = tf.while_loop(lambda k: k < 2, lambda k: k + 1, [i])
        return inner - 1, a
    out = tf.while_loop(lambda i, a: i < 5, body, [0, 1.0], maximum_iterations=4)
    with tf.Session() as sess:
        values = sess.run(out)
print(json.dumps({"graph_def": g.as_graph_def().SerializeToString().hex(),
                  "outputs": [t.name for t in out], "values": [v.tolist() for v in values]}))
"""
    return run_json(script)


def test_tensorflow_while_v2_functions_run_in_trainflow():
    from trainflow._src.framework.attr_value import from_attr_value
    from trainflow._src.framework.function_import import function_graph_from_def
    from trainflow._src.protos import graph_pb2
    spec = _tf_while_v2_graph()
    gd = graph_pb2.GraphDef.FromString(bytes.fromhex(spec["graph_def"]))
    library = {f.signature.name: f for f in gd.library.function}
    g = tf.Graph()
    built, tensors = {}, {}
    with g.as_default():
        for node in gd.node:
            inputs = [tensors[i if ":" in i else i + ":0"] for i in node.input]
            if node.op == "Const":
                value = from_attr_value(node.attr["value"])
                tensors[node.name + ":0"] = tf.constant(value, name=node.name)
                continue
            attrs = {k: from_attr_value(v) for k, v in node.attr.items()}
            for key in ("cond", "body", "then_branch", "else_branch"):
                if key in attrs:
                    attrs[key] = function_graph_from_def(library[attrs[key].name], library, g,
                                                         built)
            op = g.create_op(node.op, inputs, name=node.name + "/", attrs=attrs)
            for t in op.outputs:
                tensors[t.name] = t
        with tf.Session() as sess:
            got = sess.run([tensors[name] for name in spec["outputs"]])
    assert [v.tolist() for v in got] == spec["values"]
