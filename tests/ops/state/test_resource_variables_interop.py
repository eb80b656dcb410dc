"""Resource variables against TensorFlow 2.21's compat.v1: the same program builds the
same nodes (names, op types, VarHandleOp attrs), trains to the same numbers on
ResourceApply* ops, and checkpoints written on either side restore on the other.

Runs TF in a subprocess through the python named by TRAINFLOW_TF_PYTHON; skipped without it.
"""
import numpy as np

import trainflow.compat.v1 as tf

from tf_interop import attrs_of, needs_tf, run_json

pytestmark = needs_tf

# Run under both libraries with `tf` bound to their compat.v1 module; fills `out`.
PROGRAM = r"""
tf.enable_resource_variables()
graph = tf.Graph()
with graph.as_default():
    w = tf.get_variable("w", initializer=[[1., 2.], [3., 4.], [5., 6.]])
    emb = tf.get_variable("emb", [4, 2], initializer=tf.constant_initializer(0.25))
    b = tf.Variable([0.5, -0.5], name="b")
    x = tf.constant([[1., 2., 3.]])
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w))) + tf.reduce_sum(b * b) + \
        tf.reduce_sum(tf.square(tf.gather(emb, [0, 3, 3])))
    step = tf.train.get_or_create_global_step()
    adam = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    mom = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, name="Mom")
    sgd = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="Sgd")
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
out["nodes"] = [[op.name, op.type] for op in graph.get_operations()]
out["graph_def"] = graph.as_graph_def().SerializeToString().hex()
out["handle_attrs"] = {op.name: op.node_def.SerializeToString().hex()
                       for op in graph.get_operations() if op.type == "VarHandleOp"}
with tf.Session(graph=graph) as sess:
    sess.run(init)
    for train in (adam, mom, sgd, adam):
        sess.run(train)
    out["values"] = [v.tolist() for v in sess.run([w, emb, b])]
    saver.save(sess, prefix + "_mine")
    if restore_from:
        saver.restore(sess, restore_from)
        out["restored"] = [v.tolist() for v in sess.run([w, emb, b])]
"""

TF_DRIVER = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.load(sys.stdin)
out = {}
prefix, restore_from = spec["prefix"], spec["restore_from"]
exec(spec["program"])
print(json.dumps(out))
"""


def _ours(prefix, restore_from=None):
    out = {}
    try:
        exec(PROGRAM, {"tf": tf, "out": out, "prefix": prefix, "restore_from": restore_from})
    finally:
        tf.disable_resource_variables()
    return out


def _node_attrs(hex_node_def):
    from trainflow._src.protos import node_def_pb2
    return attrs_of(node_def_pb2.NodeDef.FromString(bytes.fromhex(hex_node_def)))


def test_same_graph_numbers_and_checkpoints_as_tensorflow(tmp_path):
    ours = _ours(str(tmp_path / "a"))
    theirs = run_json(TF_DRIVER, spec={"program": PROGRAM, "prefix": str(tmp_path / "b"),
                                       "restore_from": str(tmp_path / "a_mine")})
    assert ours["nodes"] == theirs["nodes"]
    assert ours["handle_attrs"].keys() == theirs["handle_attrs"].keys()
    for name, node in ours["handle_attrs"].items():
        assert _node_attrs(node) == _node_attrs(theirs["handle_attrs"][name]), name
    for mine, tf_value in zip(ours["values"], theirs["values"]):
        np.testing.assert_allclose(mine, tf_value, rtol=2e-6, atol=1e-7)
    # TF restored the checkpoint we wrote; we restore TF's.
    for mine, restored in zip(ours["values"], theirs["restored"]):
        np.testing.assert_array_equal(mine, restored)
    back = _ours(str(tmp_path / "c"), restore_from=str(tmp_path / "b_mine"))
    for tf_value, restored in zip(theirs["values"], back["restored"]):
        np.testing.assert_array_equal(tf_value, restored)

    # We run TF's GraphDef (its resource ops, attrs and _class colocations) to TF's numbers.
    gd = tf.GraphDef.FromString(bytes.fromhex(theirs["graph_def"]))
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            sess.run("init")
            for train in ("Adam", "Mom", "Sgd", "Adam"):
                sess.run(train)
            got = sess.run(["w/Read/ReadVariableOp:0", "emb/Read/ReadVariableOp:0",
                            "b/Read/ReadVariableOp:0"])
    for tf_value, mine in zip(theirs["values"], got):
        np.testing.assert_allclose(mine, tf_value, rtol=2e-6, atol=1e-7)


# Scatter updates and an embedding lookup on resource variables (ResourceScatterMul/Div/
# Min/Max, ResourceGather), each run twice; fills `out` under either library.
SCATTER_PROGRAM = r"""
graph = tf.Graph()
with graph.as_default():
    v = tf.get_variable("v", initializer=[[1., 2.], [3., 4.], [5., 6.]], use_resource=True)
    n = tf.get_variable("n", initializer=[7, -7, 9, 100], use_resource=True)
    ops = [tf.scatter_mul(v, [0, 2, 0], [[2., 3.], [0.5, 2.], [-1., 4.]]),
           tf.scatter_div(v, [1, 1], [[2., 8.], [4., 0.5]]),
           tf.scatter_min(v, [2], [[1., 30.]]), tf.scatter_max(v, [0], [[-5., 100.]]),
           tf.scatter_div(n, [0, 1, 0, 3], [2, 2, -3, 7])]
    rows = tf.nn.embedding_lookup(v, [2, 0, 2])
    init = tf.global_variables_initializer()
out["nodes"] = [[op.name, op.type] for op in graph.get_operations()
                if "Initializer" not in op.name]
with tf.Session(graph=graph) as sess:
    sess.run(init)
    out["values"] = []
    for _ in range(2):
        for op in ops:
            sess.run(op)
        out["values"] += [sess.run(v).tolist(), sess.run(n).tolist(), sess.run(rows).tolist()]
"""


def test_resource_scatters_and_embedding_lookup_match_tensorflow():
    ours = {}
    exec(SCATTER_PROGRAM, {"tf": tf, "out": ours})
    theirs = run_json(TF_DRIVER, spec={"program": SCATTER_PROGRAM, "prefix": "",
                                       "restore_from": ""})
    assert ours["nodes"] == theirs["nodes"]
    for mine, tf_value in zip(ours["values"], theirs["values"]):
        np.testing.assert_allclose(mine, tf_value, rtol=1e-6)


# Resource-variable reads inside control flow: the read's static shape is the variable's,
# found through the loop body's capture (TF's handle data), so loop vars keep their shapes.
LOOP_PROGRAM = r"""
out = {}
with tf.Graph().as_default():
    v = tf.get_variable("v", initializer=tf.constant([1., 2., 3.]), use_resource=True)
    m = tf.get_variable("m", initializer=tf.ones([2, 3]), use_resource=True)
    i, a = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + v), [0, tf.zeros([3])])
    _, b = tf.while_loop(lambda j, b: j < 2,
                         lambda j, b: (j + 1, b + tf.reduce_sum(m.read_value(), 0)),
                         [0, tf.zeros([3])])
    c = tf.cond(tf.constant(True), lambda: v.read_value() * 2.0, lambda: tf.zeros([3]))
    out["shapes"] = [a.shape.as_list(), b.shape.as_list(), c.shape.as_list()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = [x.tolist() for x in sess.run([a, b, c])]
"""


def _loop_program(tf_module):
    scope = {"tf": tf_module}
    exec(LOOP_PROGRAM, scope)
    return scope["out"]


def test_resource_reads_in_loops_match_tensorflow():
    theirs = run_json("""
import json
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
scope = {"tf": tf}
exec(%r, scope)
print(json.dumps(scope["out"]))
""" % LOOP_PROGRAM)
    assert _loop_program(tf) == theirs
