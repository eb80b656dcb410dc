"""tf.while_loop: the functional While op, loop-variable structures, maximum
iterations, shape invariants, captures, variables, nesting and errors."""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.graph import _get_graph_from_inputs
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.graph_export import to_function_defs


def test_ops_on_outer_tensors_go_to_the_function_graph_being_built():
    """TF's `building_function` rule: an op whose first input is an outer tensor is built
    in the function graph that is the default."""
    outer = tf.Graph()
    with outer.as_default():
        t = tf.constant(1.0)
    fg = FuncGraph("probe", outer)
    with fg.as_default():
        assert _get_graph_from_inputs([t]) is fg


def _run(fetches, feed_dict=None, init=False):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict)


def test_counting_loop_graph_and_value():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(2.0, name="x")
        i, a = tf.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * x), [0, 1.0])
        assert (i.name, a.name) == ("while/Identity_2:0", "while/Identity_3:0")
        op = g.get_operation_by_name("while")
        assert op.type == "StatelessWhile"
        assert [t.op.name for t in op.inputs] == [
            "while/loop_counter", "while/maximum_iterations", "while/Const", "while/Const_1",
            "x"]
        assert op.get_attr("parallel_iterations") == 10
        cond_fg, body_fg = op._attrs["cond"], op._attrs["body"]
        assert cond_fg.name.startswith("while_cond_") and body_fg.name.startswith("while_body_")
        assert [c.outer for c in body_fg.captures] == [x]
        assert _run([i, a]) == [10, 1024.0]


def test_loop_with_stateful_body_is_a_while_op():
    g = tf.Graph()
    with g.as_default():
        r = tf.while_loop(lambda i: i < 3, lambda i: tf.Print(i, [i]) + 1, [0])
        assert r.op.inputs[0].op.type == "While"


def test_single_loop_var_unpacked_unless_return_same_structure():
    g = tf.Graph()
    with g.as_default():
        r = tf.while_loop(lambda x: x < 5, lambda x: x + 1, [0])
        assert isinstance(r, tf.Tensor)
        same = tf.while_loop(lambda x: x < 5, lambda x: x + 1, [0], return_same_structure=True)
        assert isinstance(same, list) and len(same) == 1
        single = tf.while_loop(lambda x: x < 5, lambda x: (x + 1,), (0,))
        assert isinstance(single, tf.Tensor)
        assert _run([r, same, single]) == [5, [5], 5]


def test_nested_loop_variable_structures():
    Pair = collections.namedtuple("Pair", "a b")
    g = tf.Graph()
    with g.as_default():
        init = (0, Pair(tf.constant([1.0, 2.0]), {"n": 1, "m": tf.constant(3)}))

        def cond(i, p):
            return i < 4

        def body(i, p):
            return i + 1, Pair(p.a * 2.0, {"n": p.b["n"] + p.b["m"], "m": p.b["m"]})

        i, p = tf.while_loop(cond, body, init)
        assert isinstance(p, Pair) and set(p.b) == {"n", "m"}
        out = _run({"i": i, "a": p.a, "n": p.b["n"]})
        assert out["i"] == 4 and out["n"] == 13
        np.testing.assert_array_equal(out["a"], [16.0, 32.0])


def test_dict_loop_vars():
    g = tf.Graph()
    with g.as_default():
        r = tf.while_loop(lambda d: d["a"] < 5,
                          lambda d: ({"a": d["a"] + 1, "b": d["b"] * 2.0},),
                          [{"a": 0, "b": 1.0}])
        assert isinstance(r, list) and _run(r) == [{"a": 5, "b": 32.0}]
        with pytest.raises(ValueError, match="don't have the same nested structure"):
            tf.while_loop(lambda d: d["a"] < 5, lambda d: {"a": d["a"] + 1, "b": d["b"]},
                          [{"a": 0, "b": 1.0}])


def test_maximum_iterations():
    g = tf.Graph()
    with g.as_default():
        r = tf.while_loop(lambda x: x < 50, lambda x: x + 1, [0], maximum_iterations=7)
        zero = tf.while_loop(lambda x: x < 50, lambda x: x + 1, [0], maximum_iterations=0)
        limit = tf.placeholder(tf.int32, [])
        fed = tf.while_loop(lambda x, y: x < 50, lambda x, y: (x + 1, y * 2), [0, 1],
                            maximum_iterations=limit)
        cond_fg = r.op.inputs[0].op._attrs["cond"]
        assert [op.type for op in cond_fg.get_operations()][-2:] == ["Less", "LogicalAnd"]
        with tf.Session() as sess:
            assert sess.run([r, zero]) == [7, 0]
            assert sess.run(fed, {limit: 3}) == [3, 8]
        with pytest.raises(ValueError, match="'maximum_iterations' must be a scalar"):
            tf.while_loop(lambda x: x < 5, lambda x: x + 1, [0], maximum_iterations=[3])


def test_shape_invariants():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0])
        grow = lambda v: tf.concat([v, v], 0)  # noqa: E731
        small = lambda v: tf.size(v) < 5  # noqa: E731
        with pytest.raises(ValueError, match=r"Input tensor 'Const:0' enters the loop with "
                                             r"shape \(1,\), but has shape \(2,\) after one "
                                             "iteration. To allow the shape to vary"):
            tf.while_loop(small, grow, [x])
        with pytest.raises(ValueError, match="The shape invariant specified for Const:0 is not "
                                             "compatible with the initial shape"):
            tf.while_loop(small, grow, [x], shape_invariants=[tf.TensorShape([2])])
        with pytest.raises(TypeError, match="'shape' must be one of TypeSpec, TensorShape"):
            tf.while_loop(small, grow, [x], shape_invariants=[5])
        with pytest.raises(ValueError, match="don't have the same nested structure"):
            tf.while_loop(small, grow, [x], shape_invariants=[[None]])
        r = tf.while_loop(small, grow, [x], shape_invariants=[tf.TensorShape([None])])
        unknown = tf.while_loop(small, grow, [x], shape_invariants=[tf.TensorShape(None)])
        assert r.shape.as_list() == [None] and unknown.shape.ndims is None
        got = _run([r, unknown])
        np.testing.assert_array_equal(got[0], np.ones(8, np.float32))
        np.testing.assert_array_equal(got[1], np.ones(8, np.float32))


def test_loop_var_dtype_and_result_errors():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(TypeError, match="Loop var while/Const:0 enters the loop with type "
                                            "int32 but has type float32"):
            tf.while_loop(lambda x: x < 5, lambda x: tf.cast(x, tf.float32) + 1, [0])
        with pytest.raises(ValueError, match="don't have the same number of elements"):
            tf.while_loop(lambda x, y: x < 5, lambda x, y: x + 1, [0, 1])
        with pytest.raises(ValueError, match="None values not supported"):
            tf.while_loop(lambda x: x < 3, lambda x: [None], [0])
        with pytest.raises(TypeError, match="must return a bool tensor"):
            tf.while_loop(lambda x: x, lambda x: x + 1, [0])
        with pytest.raises(ValueError, match="must return a scalar"):
            tf.while_loop(lambda x: x < 5, lambda x: x + 1, [tf.constant([0])])
        with pytest.raises(ValueError, match="'loop_vars' must be provided."):
            tf.while_loop(lambda: True, lambda: 1, [])
        with pytest.raises(TypeError, match="'cond' must be callable."):
            tf.while_loop(1, lambda x: x, [0])
        with pytest.raises(TypeError, match="'body' must be callable."):
            tf.while_loop(lambda x: x < 1, 1, [0])
        with pytest.raises(TypeError, match="'parallel_iterations' must be a positive"):
            tf.while_loop(lambda x: x < 1, lambda x: x, [0], parallel_iterations=0)


def test_python_bool_cond_and_fed_placeholders():
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        step = tf.placeholder(tf.float32, [], name="step")
        r = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + step), [0, 0.0])
        forever = tf.while_loop(lambda x: True, lambda x: x + 2, [0], maximum_iterations=4)
        with tf.Session() as sess:
            assert sess.run(r, {n: 3, step: 0.5}) == [3, 1.5]
            assert sess.run(r, {n: 5, step: 2.0}) == [5, 10.0]
            assert sess.run(forever) == 8


def test_cond_inside_while_and_while_inside_while():
    g = tf.Graph()
    with g.as_default():
        def body(i, s):
            s = tf.cond(tf.equal(i % 2, 0), lambda: s + tf.cast(i, tf.float32),
                        lambda: s - 1.0)
            return i + 1, s

        r = tf.while_loop(lambda i, s: i < 5, body, (0, 0.0))

        def outer_body(i, s):
            inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + 1.0), [0, s])
            return i + 1, inner[1]

        nested = tf.while_loop(lambda i, s: i < 4, outer_body, [0, 0.0])
        assert _run([r, nested]) == [(5, 4.0), [4, 6.0]]


def test_while_inside_cond_runs_only_when_taken():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        limit = tf.constant(10)

        def looped():
            return tf.while_loop(lambda j: j < limit, lambda j: j + 3, [0])

        r = tf.cond(p, looped, lambda: tf.constant(-1))
        with tf.Session() as sess:
            assert sess.run(r, {p: True}) == 12
            assert sess.run(r, {p: False}) == -1


def test_error_inside_body_names_the_inner_node():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [])

        def body(i, v):
            return i + 1, tf.check_numerics(v * x, "loop value")

        r = tf.while_loop(lambda i, v: i < 3, body, [0, 1.0])
        with tf.Session() as sess:
            assert sess.run(r, {x: 2.0}) == [3, 8.0]
            with pytest.raises(errors.InvalidArgumentError,
                               match=r"loop value : Tensor had Inf values[\s\S]*CheckNumerics"):
                sess.run(r, {x: np.inf})


def test_op_added_to_outer_graph_while_building_is_reported():
    g = tf.Graph()
    with g.as_default():
        def body(i):
            with g.as_default():
                tf.constant(1, name="stray")
            return i + 1

        with pytest.raises(ValueError, match="Op 'while/stray' .* would run once instead of "
                                             "once per iteration"):
            tf.while_loop(lambda i: i < 3, body, [0])


def test_variables_updated_inside_the_loop():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0.0, name="v")
        w = tf.Variable([1.0, 2.0], name="w")

        def body(i):
            with tf.control_dependencies([v.assign_add(1.5)]):
                return i + 1

        def body2(i, acc):
            a = tf.assign(w, w * 2.0)
            with tf.control_dependencies([a]):
                return i + 1, acc + tf.reduce_sum(w.read_value())

        r = tf.while_loop(lambda i: i < 4, body, [0])
        r2 = tf.while_loop(lambda i, acc: i < 3, body2, [0, 0.0])
        assert r.op.inputs[0].op.type == "While"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(r) == 4
            assert sess.run(v) == 6.0
            assert sess.run(r2) == [3, 42.0]
            np.testing.assert_array_equal(sess.run(w), [8.0, 16.0])


def test_uninitialized_variable_in_loop_is_failed_precondition():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
        r = tf.while_loop(lambda i: i < 2, lambda i: i + tf.cast(v, tf.int32), [0])
        with tf.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v"):
                sess.run(r)


def test_function_defs_for_graph_library():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(3, name="x")
        r = tf.while_loop(lambda i: i < 10, lambda i: i + x, [0])
        fdefs = {f.signature.name: f for f in to_function_defs(r.op.inputs[0].op)}
        body = next(f for name, f in fdefs.items() if "_body_" in name)
        cond = next(f for name, f in fdefs.items() if "_cond_" in name)
        assert [a.name for a in body.signature.input_arg] == [
            "loop_counter", "maximum_iterations", "placeholder", "x"]
        assert len(body.signature.output_arg) == 4
        assert len(cond.signature.input_arg) == 4 and len(cond.signature.output_arg) == 1
        nodes = {n.name: n for n in body.node_def}
        assert list(nodes["add"].input) == ["placeholder", "x"]
        assert body.ret[body.signature.output_arg[3].name] == "x"


def test_variables_in_nested_loops_and_conds():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0, name="v")
        p = tf.placeholder(tf.bool, [])

        def inner_body(k):
            with tf.control_dependencies([tf.assign_add(v, 1)]):
                return k + 1

        def outer_body(i):
            inner = tf.while_loop(lambda k: k < 3, inner_body, [0])
            return i + inner - 2

        nested = tf.while_loop(lambda i: i < 4, outer_body, [0])

        def conditional_body(i):
            bump = tf.cond(tf.equal(i % 2, 0), lambda: tf.assign_add(v, 10),
                           lambda: tf.identity(v))
            with tf.control_dependencies([bump]):
                return i + 1

        in_cond = tf.cond(p, lambda: tf.while_loop(lambda i: i < 4, conditional_body, [0]),
                          lambda: tf.constant(-1))
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(nested) == 4
            assert sess.run(v) == 12
            assert sess.run(in_cond, {p: False}) == -1
            assert sess.run(v) == 12
            assert sess.run(in_cond, {p: True}) == 4
            assert sess.run(v) == 32


def test_resource_variable_read_in_the_body_keeps_its_shape():
    """The body's read of a captured resource variable has the variable's shape (TF follows
    the handle through the capture), so the loop var keeps (3,) (tested against TF in
    tests/ops/state/test_resource_variables_interop.py)."""
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=tf.constant([1., 2., 3.]), use_resource=True)
        shapes = []

        def body(i, a):
            shapes.append(v.value().shape.as_list())
            return i + 1, a + v

        _, a = tf.while_loop(lambda i, a: i < 3, body, [0, tf.zeros([3])])
        assert shapes == [[3]] and a.shape.as_list() == [3]
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(a).tolist() == [3.0, 6.0, 9.0]
