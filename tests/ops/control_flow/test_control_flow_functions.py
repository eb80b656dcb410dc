"""Function graphs: captures, FunctionDef export and re-import, and the functional
If / While ops built from imported functions."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.graph_export import to_function_defs
from trainflow._src.framework.function_import import function_graph_from_def


def test_capture_makes_one_placeholder_per_outer_tensor():
    outer = tf.Graph()
    with outer.as_default():
        x = tf.constant(2.0, name="x")
        other = tf.Graph()
        with other.as_default():
            stranger = tf.constant(1.0)
    fg = FuncGraph("f", outer)
    with fg.as_default():
        arg = fg.add_input(tf.float32, tf.TensorShape([]), "a")
        y = tf.multiply(arg, x)
        z = tf.add(y, x)
        assert fg.capture(x) is fg.capture(x)
        with pytest.raises(ValueError, match="must be from the same graph"):
            fg.capture(stranger)
    assert [c.outer for c in fg.captures] == [x]
    assert y.op.inputs[1] is fg.captures[0].inner and z.op.inputs[1] is fg.captures[0].inner
    assert fg.building_function and fg.inputs == [arg]


def test_outer_control_dependencies_are_recorded():
    outer = tf.Graph()
    with outer.as_default():
        anchor = tf.no_op(name="anchor")
    fg = FuncGraph("f", outer)
    with fg.as_default():
        a = fg.add_input(tf.int32, tf.TensorShape([]))
        with fg.control_dependencies([anchor]):
            b = tf.identity(a)
    assert fg.control_captures == [anchor] and b.op.control_inputs == []


def _loop_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(2.0, name="x")

        def body(i, a):
            return i + 1, tf.cond(a > 10.0, lambda: a, lambda: a * x)

        i, a = tf.while_loop(lambda i, a: i < 6, body, [0, 1.0])
        inner = tf.while_loop(lambda j: j < 3, lambda j: tf.while_loop(
            lambda k: k < 2, lambda k: k + 1, [j]) + 1, [0])
    return g, i, a, inner


def test_function_defs_round_trip_through_import():
    g, i, a, inner = _loop_graph()
    library = {}
    for op in g.get_operations():
        for fdef in to_function_defs(op):
            library[fdef.signature.name] = fdef
    assert len(library) == 6
    w = i.op.inputs[0].op
    body_def = library[w._attrs["body"].name]
    assert len(body_def.signature.input_arg) == len(body_def.signature.output_arg) == 5
    g2 = tf.Graph()
    with g2.as_default():
        built = {}
        cond = function_graph_from_def(library[w._attrs["cond"].name], library, g2, built)
        body = function_graph_from_def(body_def, library, g2, built)
        assert len(body.inputs) == 5 and len(body.outputs) == 5 and not body.captures
        ins = [tf.constant(0), tf.constant(-1), tf.constant(0), tf.constant(1.0),
               tf.constant(2.0)]
        op = g2.create_op("While", ins, attrs={
            "T": [t.dtype for t in ins], "cond": cond, "body": body,
            "output_shapes": [t.shape for t in ins], "parallel_iterations": 10})
        with tf.Session() as sess:
            assert sess.run(op.outputs) == [6, -1, 6, 16.0, 2.0]


def test_import_errors():
    g, _, _, inner = _loop_graph()
    outer_loop = inner.op.inputs[0].op
    body_def = next(f for f in to_function_defs(outer_loop)
                    if f.signature.name == outer_loop._attrs["body"].name)
    assert any(n.op in ("While", "StatelessWhile") for n in body_def.node_def)
    with pytest.raises(ValueError, match="is not in the GraphDef's library"):
        function_graph_from_def(body_def, {}, tf.Graph())
    broken = type(body_def)()
    broken.CopyFrom(body_def)
    broken.node_def[0].input.append("missing:output:0")
    with pytest.raises(ValueError, match="has unknown input 'missing:output:0'"):
        function_graph_from_def(broken, {}, tf.Graph())


def _branch(name, outer, fn):
    fg = FuncGraph(name, outer)
    with fg.as_default():
        arg = fg.add_input(tf.float32, tf.TensorShape([2]), "x")
        fg.outputs = [fn(arg)]
    return fg


@pytest.mark.parametrize("op_type", ["If", "StatelessIf"])
def test_functional_if(op_type):
    g = tf.Graph()
    with g.as_default():
        then_fg = _branch("then_fn", g, lambda x: x * 2.0)
        else_fg = _branch("else_fn", g, lambda x: x - 1.0)
        c = tf.placeholder(tf.int32, None)
        x = tf.constant([1.0, 3.0])
        op = g.create_op(op_type, [c, x], attrs={
            "Tcond": tf.int32, "Tin": [tf.float32], "Tout": [tf.float32],
            "then_branch": then_fg, "else_branch": else_fg, "output_shapes": [[2]]})
        assert op.outputs[0].shape.as_list() == [2]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(op.outputs[0], {c: 5}), [2.0, 6.0])
            np.testing.assert_array_equal(sess.run(op.outputs[0], {c: 0}), [0.0, 2.0])
            np.testing.assert_array_equal(sess.run(op.outputs[0], {c: [0]}), [2.0, 6.0])
            np.testing.assert_array_equal(sess.run(op.outputs[0], {c: []}), [0.0, 2.0])


def test_functional_ops_need_function_graphs():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0, 3.0])
        op = g.create_op("StatelessIf", [tf.constant(True), x], attrs={
            "Tcond": tf.bool, "Tin": [tf.float32], "Tout": [tf.float32],
            "then_branch": "missing_fn", "else_branch": "missing_fn"})
        with tf.Session() as sess:
            with pytest.raises(errors.UnimplementedError, match="missing_fn"):
                sess.run(op.outputs[0])
