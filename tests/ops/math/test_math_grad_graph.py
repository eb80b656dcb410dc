"""The gradient graphs of the math ops are TensorFlow's: same op types, inputs and names.

`TF_GRAPHS` holds the nodes TensorFlow 2.21 (`tf.compat.v1`, graph mode) adds under
`gradients/<op>_grad/` for the programs in `PROGRAMS`, recorded by running them under
TensorFlow with the same placeholders. `mlp.json` (a fixture written by TensorFlow)
holds the gradient node names of a real training graph. Node lines read
"name op_type input...": "./" is the op's gradient scope, "~/" the `gradients`
scope, "^" a control input.
"""
import json
import os

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry

from fixture_paths import FIXTURES


def _placeholders(tf_, spec):
    return {name: tf_.placeholder(tf_.float64, shape, name=name) for name, shape in spec}


# Each program: (placeholders, function of them). Shapes with None are dynamic.
PROGRAMS = {
    "sum_1": ([("x", [2, 3])], lambda p: tf.reduce_sum(p["x"], 1)),
    "dsum_1": ([("x", [None, 3])], lambda p: tf.reduce_sum(p["x"], 1)),
    "mean_0": ([("x", [2, 3])], lambda p: tf.reduce_mean(p["x"], 0)),
    "mul": ([("x", [2, 3]), ("y", [3])], lambda p: p["x"] * p["y"]),
    "mul_dyn": ([("x", [None, 3]), ("y", [None, 1])], lambda p: p["x"] * p["y"]),
    "matmul_tt": ([("a", [3, 2]), ("b", [4, 3])],
                  lambda p: tf.matmul(p["a"], p["b"], transpose_a=True, transpose_b=True)),
    "bmm_bcast": ([("a", [2, 2, 3]), ("b", [3, 4])], lambda p: tf.matmul(p["a"], p["b"])),
    "square": ([("x", [2, 3])], lambda p: tf.square(p["x"])),
    "tanh": ([("x", [2, 3])], lambda p: tf.tanh(p["x"])),
}

TF_GRAPHS = {
    "sum_1": ("Sum_grad", """
        Maximum/x Const
        Maximum/y Const
        Maximum Maximum ./Maximum/x ./Maximum/y
        floordiv/x Const
        floordiv FloorDiv ./floordiv/x ./Maximum
        Reshape/shape Const
        Reshape Reshape ~/grad_ys_0 ./Reshape/shape
        Tile/multiples Const
        Tile Tile ./Reshape ./Tile/multiples
    """),
    "dsum_1": ("Sum_grad", """
        Shape Shape x
        Size Const
        add AddV2 Sum/reduction_indices ./Size
        mod FloorMod ./add ./Size
        Shape_1 Const
        range/start Const
        range/delta Const
        range Range ./range/start ./Size ./range/delta
        ones/Const Const
        ones Fill ./Shape_1 ./ones/Const
        DynamicStitch DynamicStitch ./range ./mod ./Shape ./ones
        Reshape Reshape ~/grad_ys_0 ./DynamicStitch
        BroadcastTo BroadcastTo ./Reshape ./Shape
    """),
    "mean_0": ("Mean_grad", """
        Maximum/x Const
        Maximum/y Const
        Maximum Maximum ./Maximum/x ./Maximum/y
        floordiv/x Const
        floordiv FloorDiv ./floordiv/x ./Maximum
        Reshape/shape Const
        Reshape Reshape ~/grad_ys_0 ./Reshape/shape
        Tile/multiples Const
        Tile Tile ./Reshape ./Tile/multiples
        Const Const
        truediv RealDiv ./Tile ./Const
    """),
    "mul": ("mul_grad", """
        Mul Mul ~/grad_ys_0 y
        Mul_1 Mul x ~/grad_ys_0
        Shape Const
        Shape_1 Const
        Sum/reduction_indices Const
        Sum Sum ./Mul_1 ./Sum/reduction_indices
        Reshape Reshape ./Sum ./Shape_1
    """),
    "mul_dyn": ("mul_grad", """
        Mul Mul ~/grad_ys_0 y
        Mul_1 Mul x ~/grad_ys_0
        Shape Shape x
        Shape_1 Shape y
        BroadcastGradientArgs BroadcastGradientArgs ./Shape ./Shape_1
        Sum Sum ./Mul ./BroadcastGradientArgs
        Reshape Reshape ./Sum ./Shape
        Sum_1 Sum ./Mul_1 ./BroadcastGradientArgs:1
        Reshape_1 Reshape ./Sum_1 ./Shape_1
    """),
    "matmul_tt": ("MatMul_grad", """
        MatMul MatMul b ~/grad_ys_0
        MatMul_1 MatMul ~/grad_ys_0 a
    """),
    "bmm_bcast": ("MatMul_grad", """
        MatMul BatchMatMulV2 ~/grad_ys_0 b
        MatMul_1 BatchMatMulV2 a ~/grad_ys_0
        Shape Const
        Shape_1 Const
        strided_slice/stack Const
        strided_slice/stack_1 Const
        strided_slice/stack_2 Const
        strided_slice StridedSlice ./Shape ./strided_slice/stack \
            ./strided_slice/stack_1 ./strided_slice/stack_2
        strided_slice_1/stack Const
        strided_slice_1/stack_1 Const
        strided_slice_1/stack_2 Const
        strided_slice_1 StridedSlice ./Shape_1 ./strided_slice_1/stack \
            ./strided_slice_1/stack_1 ./strided_slice_1/stack_2
        BroadcastGradientArgs BroadcastGradientArgs ./strided_slice ./strided_slice_1
        Sum Sum ./MatMul ./BroadcastGradientArgs
        Reshape Reshape ./Sum ./Shape
        Sum_1 Sum ./MatMul_1 ./BroadcastGradientArgs:1
        Reshape_1 Reshape ./Sum_1 ./Shape_1
    """),
    "square": ("Square_grad", """
        Const Const ^~/grad_ys_0
        Mul Mul x ./Const
        Mul_1 Mul ~/grad_ys_0 ./Mul
    """),
    "tanh": ("Tanh_grad", """
        TanhGrad TanhGrad Tanh ~/grad_ys_0
    """),
}


def _parse(scope, text):
    prefix = f"gradients/{scope}/"

    def full(name):
        if name.startswith("^"):
            return "^" + full(name[1:])
        if name.startswith("./"):
            return prefix + name[2:]
        if name.startswith("~/"):
            return "gradients/" + name[2:]
        return name
    nodes = []
    for line in text.strip().splitlines():
        name, op_type, *inputs = line.split()
        nodes.append((prefix + name, op_type, [full(i) for i in inputs]))
    return nodes


def _nodes_in(graph, prefix):
    out = []
    for op in graph.get_operations():
        if op.name.startswith(prefix):
            inputs = [t.name[:-2] if t.name.endswith(":0") else t.name for t in op.inputs]
            inputs += sorted("^" + c.name for c in op.control_inputs)
            out.append((op.name, op.type, inputs))
    return out


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_gradient_graph_is_tensorflows(program):
    spec, fn = PROGRAMS[program]
    scope, text = TF_GRAPHS[program]
    g = tf.Graph()
    with g.as_default():
        p = _placeholders(tf, spec)
        tf.gradients(fn(p), [p[name] for name, _ in spec])
    assert _nodes_in(g, f"gradients/{scope}/") == _parse(scope, text)




def _mlp_gradient_names():
    with open(os.path.join(FIXTURES, "graphs", "mlp.json")) as f:
        return json.load(f)["gradient_node_names"]


def _mlp_like_loss():
    """The fixture's forward names around the math ops: dense/MatMul, dense_1/MatMul
    and a Mean named "loss" over a [None] tensor with its axes in "Const"."""
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    k0 = tf.placeholder(tf.float32, [4, 8], name="dense/kernel/read")
    k1 = tf.placeholder(tf.float32, [8, 3], name="dense_1/kernel/read")
    with tf.name_scope("dense"):
        h = tf.matmul(x, k0)
    with tf.name_scope("dense_1"):
        logits = tf.matmul(h, k1)
    per_example = tf.reduce_sum(tf.square(logits), 1)
    return tf.reduce_mean(per_example, name="loss"), [k0, k1]


def test_mean_gradient_names_match_the_training_fixture():
    want = [n for n in _mlp_gradient_names() if n.startswith("gradients/loss_grad/")]
    g = tf.Graph()
    with g.as_default():
        loss, ws = _mlp_like_loss()
        assert loss.op.inputs[1].op.name == "Const"
        tf.gradients(loss, ws, gate_gradients=True)
    got = [op.name for op in g.get_operations() if op.name.startswith("gradients/loss_grad/")]
    assert got == want
    by_name = {op.name: op for op in g.get_operations()}
    assert by_name["gradients/loss_grad/truediv"].type == "RealDiv"
    assert [t.op.name for t in by_name["gradients/loss_grad/add"].inputs] == [
        "Const", "gradients/loss_grad/Size"]


@pytest.mark.parametrize("layer", ["dense", "dense_1"])
def test_matmul_gradient_names_match_the_training_fixture(layer):
    prefix = f"gradients/{layer}/MatMul_grad/"
    want = [n for n in _mlp_gradient_names() if n.startswith(prefix)]
    g = tf.Graph()
    with g.as_default():
        loss, ws = _mlp_like_loss()
        tf.gradients(loss, ws, gate_gradients=True)
    got = [op.name for op in g.get_operations() if op.name.startswith(prefix)]
    assert got == want
    grad_a, grad_b = g.get_operation_by_name(prefix + "MatMul"), \
        g.get_operation_by_name(prefix + "MatMul_1")
    assert (grad_a.get_attr("transpose_b"), grad_a.get_attr("grad_a")) == (True, True)
    assert (grad_b.get_attr("transpose_a"), grad_b.get_attr("grad_b")) == (True, True)
    assert grad_a.inputs[1].op.name == f"{layer}/kernel/read"


def test_training_graph_gradient_names_match_the_fixture():
    """The whole gradient subgraph of mlp.json's training graph, in creation order."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        labels = tf.placeholder(tf.float32, [None, 3], name="y")
        h = x
        for scope, shape, act in (("dense", [4, 8], tf.nn.relu), ("dense_1", [8, 3], None)):
            with tf.variable_scope(scope):
                kernel = tf.get_variable("kernel", shape)
                bias = tf.get_variable("bias", shape[1:], initializer=tf.zeros_initializer())
                h = tf.nn.bias_add(tf.matmul(h, kernel), bias)
                h = act(h) if act else h
        xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=h,
                                                          name="xent")
        loss = tf.reduce_mean(xent, name="loss")
        tf.gradients(loss, tf.trainable_variables(), gate_gradients=True)
    got = [op.name for op in g.get_operations() if op.name.startswith("gradients/")]
    assert got == _mlp_gradient_names()


def test_gradient_ops_are_registered_with_kernels():
    for op_type in ("TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad",
                    "InvGrad", "ListDiff", "Complex"):
        assert registry.get(op_type).kernel is not None, op_type
