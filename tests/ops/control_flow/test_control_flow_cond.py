"""tf.cond and tf.case: graph structure (TF's names), values, nested structures,
untaken-branch side effects and errors."""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.ops.control_flow import switch as control_flow_switch


def _ops(g):
    return [(op.name, op.type, [t.name for t in op.inputs], [c.name for c in op.control_inputs])
            for op in g.get_operations()]


def test_cond_graph_matches_tensorflow_names():
    # Structure and names as TensorFlow 2.21 (compat.v1 graph mode) builds them.
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        x = tf.constant(1.0, name="x")
        tf.cond(p, lambda: x + 1.0, lambda: x * 2.0)
    assert _ops(g)[2:] == [
        ("cond/Switch", "Switch", ["p:0", "p:0"], []),
        ("cond/switch_t", "Identity", ["cond/Switch:1"], []),
        ("cond/switch_f", "Identity", ["cond/Switch:0"], []),
        ("cond/pred_id", "Identity", ["p:0"], []),
        ("cond/add/y", "Const", [], ["cond/switch_t"]),
        ("cond/add", "AddV2", ["cond/add/Switch:1", "cond/add/y:0"], []),
        ("cond/add/Switch", "Switch", ["x:0", "cond/pred_id:0"], []),
        ("cond/mul/y", "Const", [], ["cond/switch_f"]),
        ("cond/mul", "Mul", ["cond/mul/Switch:0", "cond/mul/y:0"], []),
        ("cond/mul/Switch", "Switch", ["x:0", "cond/pred_id:0"], []),
        ("cond/Merge", "Merge", ["cond/mul:0", "cond/add:0"], []),
    ]
    switch = g.get_operation_by_name("cond/add/Switch")
    assert switch.get_attr("_class") == [b"loc:@x"]


def test_cond_returning_outer_tensors_and_constants():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        x = tf.constant(3.0, name="x")
        y = tf.constant(4.0, name="y")
        r = tf.cond(p, lambda: x, lambda: y)
        c = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))
        assert r.name == "cond/Merge:0"
        names = [op.name for op in g.get_operations()]
        assert "cond/Switch_1" in names and "cond/Switch_2" in names
        assert g.get_operation_by_name("cond_1/Const").control_inputs[0].name == \
            "cond_1/switch_t"
        with tf.Session() as sess:
            assert sess.run([r, c], {p: True}) == [3.0, 1]
            assert sess.run([r, c], {p: False}) == [4.0, 2]


def test_untaken_branch_side_effects_do_not_run():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        v = tf.Variable(0.0, name="v")
        w = tf.Variable(0.0, name="w")
        r = tf.cond(p, lambda: tf.assign(v, 1.0), lambda: tf.assign(w, 2.0))
        assert g.get_operation_by_name("cond/Assign/Switch").type == "RefSwitch"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(r, {p: True}) == 1.0
            assert sess.run([v, w]) == [1.0, 0.0]
            assert sess.run(r, {p: False}) == 2.0
            assert sess.run([v, w]) == [1.0, 2.0]


def test_print_in_untaken_branch_does_not_print(capsys):
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.constant([1, 2])
        r = tf.cond(p, lambda: tf.Print(x, [x], message="taken: "), lambda: x + 10)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(r, {p: False}), [11, 12])
            assert capsys.readouterr().err == ""
            np.testing.assert_array_equal(sess.run(r, {p: True}), [1, 2])
            assert capsys.readouterr().err == "taken: [1 2]\n"


def test_nested_structures():
    Point = collections.namedtuple("Point", "x y")
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        a = tf.constant(1.0)
        b = tf.constant([1, 2])

        def true_fn():
            return {"pt": Point(a + 1.0, b), "list": [a, (b * 2,)]}

        def false_fn():
            return {"pt": Point(a - 1.0, b + 1), "list": [a * 3.0, (b,)]}

        r = tf.cond(p, true_fn, false_fn)
        assert isinstance(r["pt"], Point) and isinstance(r["list"][1], tuple)
        with tf.Session() as sess:
            got = sess.run(r, {p: True})
            assert got["pt"].x == 2.0 and got["list"][0] == 1.0
            np.testing.assert_array_equal(got["list"][1][0], [2, 4])
            got = sess.run(r, {p: False})
            np.testing.assert_array_equal(got["pt"].y, [2, 3])
            assert got["list"][0] == 3.0


def test_singletons_unpacked_unless_strict():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.constant(1)
        assert isinstance(tf.cond(p, lambda: [x], lambda: [x]), tf.Tensor)
        strict = tf.cond(p, lambda: [x], lambda: [x], strict=True)
        assert isinstance(strict, list) and len(strict) == 1


def test_cond_with_operations_returns_bool_tensor():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        v = tf.Variable(1, name="v")
        r = tf.cond(p, lambda: tf.assign(v, 5).op, tf.no_op)
        assert r.dtype == tf.bool and r.name == "cond/Merge:0"
        assert g.get_operation_by_name("cond/control_dependency").control_inputs[0].name == \
            "cond/Assign"
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(r, {p: False}) is np.False_ or not sess.run(r, {p: False})
            assert sess.run(v) == 1
            sess.run(r, {p: True})
            assert sess.run(v) == 5


def test_nested_conds():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        q = tf.placeholder(tf.bool, [])
        x = tf.constant(10)
        r = tf.cond(p, lambda: tf.cond(q, lambda: x + 1, lambda: x + 2), lambda: x - 1)
        with tf.Session() as sess:
            results = {(pv, qv): sess.run(r, {p: pv, q: qv}) for pv in (True, False)
                       for qv in (True, False)}
        assert results == {(True, True): 11, (True, False): 12, (False, True): 9,
                           (False, False): 9}


def test_ops_inside_a_branch_are_not_fetchable():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        inner = []

        def true_fn():
            t = tf.constant(2) * 3
            inner.append(t)
            return t

        tf.cond(p, true_fn, lambda: tf.constant(0))
        with tf.Session() as sess:
            with pytest.raises(ValueError, match="not fetchable"):
                sess.run(inner[0], {p: True})


def test_pred_validation():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1.0)
        with pytest.raises(TypeError, match="'pred' must not be a Python bool."):
            tf.cond(True, lambda: x, lambda: x)
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.cond(tf.constant([True]), lambda: x, lambda: x)
        with pytest.raises(TypeError, match="'pred'.*bool"):
            tf.cond(tf.constant(1), lambda: x, lambda: x)
        with pytest.raises(TypeError, match="'true_fn' must be callable."):
            tf.cond(tf.constant(True), x, lambda: x)
        with pytest.raises(TypeError, match="'false_fn' argument required"):
            tf.cond(tf.constant(True), lambda: x)


def test_branch_result_errors():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.constant(1.0)
        with pytest.raises(ValueError, match="'true_fn' must have a return value."):
            tf.cond(p, lambda: None, lambda: x)
        with pytest.raises(ValueError, match="must have the same type.*float32 from 'true_fn' "
                                             "and int32 from 'false_fn'"):
            tf.cond(p, lambda: x, lambda: tf.constant(1))
        with pytest.raises(ValueError, match="don't have the same nested structure"):
            tf.cond(p, lambda: (x, x), lambda: x)
        with pytest.raises(TypeError, match="same sequence type"):
            tf.cond(p, lambda: (x, x), lambda: [x, x])


def test_fn1_fn2_aliases():
    g = tf.Graph()
    with g.as_default():
        r = tf.cond(tf.constant(False), fn1=lambda: tf.constant(1), fn2=lambda: tf.constant(2))
        with tf.Session() as sess:
            assert sess.run(r) == 2
        with pytest.raises(TypeError, match="may not be set simultaneously"):
            tf.cond(tf.constant(True), lambda: 1, lambda: 2, fn1=lambda: 1)


def test_switch_and_merge_functions():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.placeholder(tf.float32, [2, None])
        f, t = control_flow_switch.switch(x, p)
        assert f.shape.as_list() == [2, None]
        y = tf.placeholder(tf.float32, [2, 3])
        out, index = control_flow_switch.merge([f, y])
        assert out.shape.as_list() == [2, None] and index.shape.ndims == 0
        with pytest.raises(ValueError, match="merge inputs is None"):
            control_flow_switch.merge([None, f])
        m, i = control_flow_switch.merge([f + 1.0, t * 2.0])
        with tf.Session() as sess:
            val, idx = sess.run([m, i], {p: True, x: [[1.0], [2.0]]})
            np.testing.assert_array_equal(val, [[2.0], [4.0]])
            assert idx == 1
            with pytest.raises(errors.InvalidArgumentError, match="untaken branch"):
                sess.run(t, {p: False, x: [[1.0], [2.0]]})


def test_case_picks_first_true_predicate():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.bool, [], name="a")
        b = tf.placeholder(tf.bool, [], name="b")
        r = tf.case([(a, lambda: tf.constant(1)), (b, lambda: tf.constant(2))],
                    default=lambda: tf.constant(3))
        assert r.name == "case/cond/Merge:0"
        with tf.Session() as sess:
            got = [sess.run(r, {a: av, b: bv}) for av, bv in
                   [(True, True), (True, False), (False, True), (False, False)]]
        assert got == [1, 1, 2, 3]


def test_case_exclusive_and_without_default():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.bool, [], name="a")
        b = tf.placeholder(tf.bool, [], name="b")
        r = tf.case([(a, lambda: tf.constant(1)), (b, lambda: tf.constant(2))],
                    default=lambda: tf.constant(3), exclusive=True)
        nd = tf.case([(a, lambda: tf.constant(1)), (b, lambda: tf.constant(2))])
        with tf.Session() as sess:
            assert sess.run(r, {a: False, b: True}) == 2
            with pytest.raises(errors.InvalidArgumentError,
                               match=r"Input error: exclusive=True: more than 1 conditions "
                                     r"\(a:0, b:0\) evaluated as True:\] \[1 1\]"):
                sess.run(r, {a: True, b: True})
            assert sess.run(nd, {a: False, b: True}) == 2
            with pytest.raises(errors.InvalidArgumentError,
                               match="None of conditions evaluated as True"):
                sess.run(nd, {a: False, b: False})


def test_case_argument_errors():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.bool, [])
        with pytest.raises(TypeError, match="must be a list, tuple, or dict"):
            tf.case(a, default=lambda: 1)
        with pytest.raises(TypeError, match="must be a 2-tuple"):
            tf.case([[a, lambda: 1]])
        with pytest.raises(TypeError, match="pred must be Tensor of type bool"):
            tf.case([(tf.constant(1), lambda: 1)])
        with pytest.raises(TypeError, match="pred must be a Tensor"):
            tf.case([(True, lambda: 1)])
        with pytest.raises(TypeError, match="must be callable"):
            tf.case([(a, 1)])


def test_case_with_dict_sorted_by_predicate_name():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.bool, [], name="a")
        b = tf.placeholder(tf.bool, [], name="b")
        r = tf.case({b: lambda: tf.constant(2), a: lambda: tf.constant(1)},
                    default=lambda: tf.constant(0), exclusive=True)
        with tf.Session() as sess:
            assert sess.run(r, {a: True, b: False}) == 1
            assert sess.run(r, {a: False, b: True}) == 2


def test_cond_with_indexed_slices_and_sparse_tensors():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [])
        s1 = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([2, 2]))
        s2 = tf.IndexedSlices(tf.constant([[3.0, 4.0]]), tf.constant([1]), tf.constant([2, 2]))
        r = tf.cond(p, lambda: s1, lambda: s2)
        assert isinstance(r, tf.IndexedSlices)
        sp1 = tf.SparseTensor([[0, 0]], [1], [2, 2])
        sp2 = tf.SparseTensor([[1, 1]], [5], [2, 2])
        sp = tf.cond(p, lambda: sp1, lambda: sp2)
        assert isinstance(sp, tf.SparseTensor)
        with tf.Session() as sess:
            values, indices = sess.run([r.values, r.indices], {p: False})
            np.testing.assert_array_equal(values, [[3.0, 4.0]])
            assert list(indices) == [1]
            got = sess.run(sp, {p: True})
            assert got.indices.tolist() == [[0, 0]] and got.values.tolist() == [1]
        with pytest.raises(TypeError, match="Incompatible return types"):
            tf.cond(p, lambda: s1, lambda: sp1)
