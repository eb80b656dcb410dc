"""Optimizer graphs checked against TensorFlow itself: the same TF1 program, run by
trainflow here and by TensorFlow 2.21 in a subprocess (TRAINFLOW_TF_PYTHON; skipped when
unset), must create the same update nodes (names, op types, inputs, attrs) and the same
trajectories, for a dense variable and an embedding updated through sparse gradients."""
import textwrap

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import attrs_of, needs_tf, run_json

OPTIMIZERS = {
    "momentum_nesterov": "tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)",
    "adagrad": "tf.train.AdagradOptimizer(0.2, initial_accumulator_value=0.3)",
    "adagrad_da": "tf.train.AdagradDAOptimizer(0.1, step, l1_regularization_strength=0.01,"
                  " l2_regularization_strength=0.02)",
    "adadelta": "tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)",
    "ftrl": "tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.05, beta=0.1)",
    "ftrl_v2": "tf.train.FtrlOptimizer(0.1, learning_rate_power=-0.3, "
               "l2_shrinkage_regularization_strength=0.1)",
    "proximal_gd": "tf.train.ProximalGradientDescentOptimizer(0.1, 0.05, 0.1)",
    "proximal_adagrad": "tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.05)",
    "rmsprop_centered": "tf.train.RMSPropOptimizer(0.05, momentum=0.5, centered=True)",
    "adam": "tf.train.AdamOptimizer(0.1)",
}

BUILD = """
w = tf.Variable([1.0, -2.0, 0.5], name="w")
emb = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="emb")
step = tf.train.get_or_create_global_step()
g = tf.placeholder(tf.float32, [3], name="g")
rows = tf.placeholder(tf.float32, [3, 2], name="rows")
loss = tf.reduce_sum(w * g) + tf.reduce_sum(tf.gather(emb, [2, 0, 2]) * rows)
opt = {opt}
train = opt.minimize(loss, global_step=step, name="train")
init = tf.global_variables_initializer()
"""

RUN_TF = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
result = {}
for name, build in spec["builds"].items():
  with tf.Graph().as_default() as graph:
    exec(build)
    nodes = {n.name: [n.op, list(n.input)] for n in graph.as_graph_def().node}
    from google.protobuf import text_format
    attrs = {n.name: {k: text_format.MessageToString(v, as_one_line=True)
                      for k, v in sorted(n.attr.items())
                      if k != "value" and not k.startswith("_")}
             for n in graph.as_graph_def().node}
    with tf.Session() as sess:
        sess.run(init)
        traj = []
        for gv, rv in spec["feeds"]:
            sess.run(train, {g: gv, rows: rv})
            traj.append([sess.run(w).tolist(), sess.run(emb).tolist()])
    result[name] = {"nodes": nodes, "attrs": attrs, "traj": traj}
print(json.dumps(result))
"""

FEEDS = [([0.5, -1.0, 0.25], [[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]]),
         ([-0.3, 0.2, 1.0], [[1.0, -1.0], [0.0, 0.5], [0.25, 0.25]]),
         ([2.0, 0.0, -0.5], [[-0.2, 0.1], [0.4, 0.4], [0.0, -0.3]])]


def _update_nodes(nodes):
    """The nodes the optimizer adds: its update scope and its slot variables."""
    return {n: v for n, v in nodes.items()
            if n.startswith(("train/", "train")) or "/" in n and n.split("/")[0] in (
                "w", "emb") and n.split("/")[1] not in ("read", "Assign", "initial_value")}


def _build(name):
    return textwrap.dedent(BUILD).format(opt=OPTIMIZERS[name])


@pytest.fixture(scope="module")
def tensorflow_runs():
    """Every program run by TensorFlow in one subprocess."""
    return run_json(RUN_TF, spec={"builds": {n: _build(n) for n in OPTIMIZERS},
                                  "feeds": FEEDS})


@needs_tf
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_same_graph_and_trajectory_as_tensorflow(name, tensorflow_runs):
    build = _build(name)
    theirs = tensorflow_runs[name]
    scope = {"tf": tf, "np": np}
    with tf.Graph().as_default() as graph:
        exec(build, scope)  # noqa: S102 - the shared TF1 program
        gd = graph.as_graph_def()
        nodes = {n.name: [n.op, list(n.input)] for n in gd.node}
        attrs = {n.name: attrs_of(n) for n in gd.node}
        with tf.Session() as sess:
            sess.run(scope["init"])
            traj = []
            for gv, rv in FEEDS:
                sess.run(scope["train"], {scope["g"]: gv, scope["rows"]: rv})
                traj.append([sess.run(scope["w"]), sess.run(scope["emb"])])
    ours_upd, theirs_upd = _update_nodes(nodes), _update_nodes(theirs["nodes"])
    assert sorted(ours_upd) == sorted(theirs_upd)
    for n in ours_upd:
        assert ours_upd[n] == theirs_upd[n], n
        if ours_upd[n][0].startswith(("Apply", "SparseApply")):
            assert attrs[n] == theirs["attrs"][n], n
    for (w, emb), (tw, temb) in zip(traj, theirs["traj"]):
        np.testing.assert_allclose(w, np.asarray(tw, np.float32), rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(emb, np.asarray(temb, np.float32), rtol=2e-6, atol=1e-7)
