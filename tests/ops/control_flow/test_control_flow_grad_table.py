"""Gradients through control flow against finite differences.

`CASES` is data: (id, graph function of the float64 placeholders, sample inputs,
extra feeds {name: value} for bool/int placeholders made by `flags`). Every
case runs `tf.test.compute_gradient_error` in float64 for each input; the
conditionals run once per branch (their predicate is fed).
"""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.ops.control_flow.switch import merge, switch
from trainflow._src.framework.function_graph import FuncGraph

Case = collections.namedtuple("Case", "id fn inputs flags")

V3 = np.array([0.3, 0.7, -0.2])
V2 = np.array([0.4, 1.3])
M23 = np.array([[0.5, -0.4, 0.9], [1.1, 0.2, -0.7]])


def _flag(name):
    """The bool/int placeholder `name` of the current graph (fed by the case)."""
    return tf.get_default_graph().get_tensor_by_name(name + ":0")


def _nested_cond(x):
    a, b = _flag("a"), _flag("b")
    return tf.cond(a, lambda: tf.cond(b, lambda: tf.sin(x) * x, lambda: x * x * 2.0),
                   lambda: tf.cond(b, lambda: tf.exp(x), lambda: x + 1.0))


def _case(x, y):
    k = _flag("k")
    return tf.case([(tf.equal(k, 0), lambda: x * y), (tf.equal(k, 1), lambda: tf.sin(x) + y)],
                   default=lambda: x * 3.0 - y * y)


def _power(x):
    return tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * x),
                         [0, tf.ones_like(x)])[1]


def _sum_sin(x):
    def body(i, s):
        return i + 1, s + tf.sin(x * tf.cast(i, tf.float64))
    return tf.while_loop(lambda i, s: i < 6, body, [0, tf.zeros_like(x)])[1]


def _two_vars(x, y):
    out = tf.while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, a + b, tf.sin(a) * b),
                        [0, x, y])
    return out[1] * 2.0 + out[2]


def _nested_structure(x):
    def body(i, d):
        return i + 1, {"a": d["a"] * d["b"][0], "b": (d["b"][0] + x, d["b"][1] + 1)}
    out = tf.while_loop(lambda i, d: i < 3, body, [0, {"a": x, "b": (x * 2.0, 1)}])[1]
    return out["a"]


def _max_iterations(x):
    return tf.while_loop(lambda a: tf.constant(True), lambda a: a * x + 0.5, [x],
                         maximum_iterations=3)


def _cond_in_while(x):
    def body(i, v):
        return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: v * x, lambda: tf.sin(v) + x)
    return tf.while_loop(lambda i, v: i < 5, body, [0, tf.ones_like(x)])[1]


def _cond_in_while_dynamic_shapes(x):
    xd = tf.placeholder_with_default(x, None)

    def body(i, v):
        return i + 1, tf.cond(tf.equal(i % 2, 0),
                              lambda: tf.reduce_sum(v * xd, keepdims=True) * v,
                              lambda: tf.sin(v) + xd)
    out = tf.while_loop(lambda i, v: i < 4, body, [0, xd],
                        shape_invariants=[tf.TensorShape([]), tf.TensorShape(None)])[1]
    return tf.reshape(out, x.shape)


def _while_in_cond(x):
    return tf.cond(_flag("p"), lambda: tf.while_loop(
        lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, x])[1], lambda: x * 5.0)


def _nested_while(x):
    def outer(i, v):
        inner = tf.while_loop(lambda j, u: j < i, lambda j, u: (j + 1, u * x + 0.1), [0, v])[1]
        return i + 1, tf.sin(inner)
    return tf.while_loop(lambda i, v: i < 4, outer, [0, x])[1]


def _while_cond_while(x):
    def body(i, v):
        return i + 1, tf.cond(i > 1, lambda: tf.while_loop(
            lambda j, u: j < 2, lambda j, u: (j + 1, tf.sin(u) * x), [0, v])[1],
            lambda: v + x)
    return tf.while_loop(lambda i, v: i < 4, body, [0, x])[1]


def _growing_shape(x):
    out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.concat([v, v[-2:] * x], 0)),
                        [0, x], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])[1]
    return tf.reduce_sum(tf.sin(out))


def _zero_iterations(x):
    return tf.while_loop(lambda a: tf.reduce_sum(a) > 100.0, lambda a: a * 2.0, [x * 3.0])


def _matmul_loop(w, h):
    def body(i, h):
        return i + 1, tf.tanh(tf.matmul(h, w))
    return tf.while_loop(lambda i, h: i < 3, body, [0, h])[1]


def _gather_in_loop(emb):
    def body(i, acc):
        return i + 1, acc + tf.gather(emb, tf.stack([i % 2, 1])) * tf.cast(i + 1, tf.float64)
    return tf.while_loop(lambda i, a: i < 3, body, [0, tf.zeros([2, 3], tf.float64)])[1]


def _raw_switch_merge(x):
    f, t = switch(x, _flag("p"))
    return merge([tf.sin(f), t * 2.0])[0] + x


def _branch_graph(name, fn):
    fg = FuncGraph(name, tf.get_default_graph())
    with fg.as_default():
        a = fg.add_input(tf.float64, tf.TensorShape([3]), "a")
        b = fg.add_input(tf.float64, tf.TensorShape([]), "b")
        fg.outputs = list(fn(a, b))
    return fg


def _functional_if(op_type):
    def fn(x, y):
        then_fg = _branch_graph("then_fn", lambda a, b: (a * b * 2.0, tf.sin(a)))
        else_fg = _branch_graph("else_fn", lambda a, b: (a - b, a * a))
        op = apply_op(op_type, cond=_flag("p"), input=[x, y], Tout=[tf.float64, tf.float64],
                      then_branch=then_fg, else_branch=else_fg, output_shapes=[[3], [3]])
        return op.outputs[0] * 3.0 + op.outputs[1]
    return fn


BOTH = [{"p": True}, {"p": False}]
CASES = [
    Case("cond_true_false", lambda x: tf.cond(_flag("p"), lambda: x * 3.0, lambda: tf.sin(x)),
         [V3], BOTH),
    Case("cond_outer_tensor_in_one_branch",
         lambda x, y: tf.cond(_flag("p"), lambda: x * y, lambda: x), [V3, V3 + 1.0], BOTH),
    Case("cond_multiple_outputs", lambda x: tf.add_n(list(tf.cond(
        _flag("p"), lambda: (x * x, tf.sin(x)), lambda: (tf.exp(x), x)))), [V3], BOTH),
    Case("nested_cond", _nested_cond, [V3],
         [{"a": a, "b": b} for a in (True, False) for b in (True, False)]),
    Case("case", _case, [V2, V2 + 0.5], [{"k": 0}, {"k": 1}, {"k": 2}]),
    Case("while_power", _power, [V3], [{}]),
    Case("while_sum_sin", _sum_sin, [V3], [{}]),
    Case("while_two_vars", _two_vars, [V2, V2 - 1.0], [{}]),
    Case("while_nested_structure", _nested_structure, [V2], [{}]),
    Case("while_maximum_iterations", _max_iterations, [V3], [{}]),
    Case("while_zero_iterations", _zero_iterations, [V2], [{}]),
    Case("while_growing_shape", _growing_shape, [V2], [{}]),
    Case("while_matmul_captured", _matmul_loop, [np.array([[0.5, -0.3], [0.2, 0.8]]),
                                                 np.array([[1.0, -1.0], [0.5, 2.0]])], [{}]),
    Case("while_gather_captured", _gather_in_loop, [M23], [{}]),
    Case("cond_in_while", _cond_in_while, [V2], [{}]),
    Case("cond_in_while_dynamic_shapes", _cond_in_while_dynamic_shapes, [V3], [{}]),
    Case("while_in_cond", _while_in_cond, [V2], BOTH),
    Case("nested_while", _nested_while, [V2], [{}]),
    Case("while_cond_while", _while_cond_while, [V2], [{}]),
    Case("switch_merge_without_cond", _raw_switch_merge, [V2], BOTH),
    Case("print", lambda x: tf.Print(x * x, [x], message="x: "), [V3], [{}]),
    Case("check_numerics", lambda x: tf.check_numerics(tf.sin(x), "sin"), [V3], [{}]),
    Case("functional_if", _functional_if("If"), [V3, np.array(1.5)], BOTH),
    Case("functional_stateless_if", _functional_if("StatelessIf"), [V3, np.array(1.5)], BOTH),
]

_FLAG_DTYPES = {"p": tf.bool, "a": tf.bool, "b": tf.bool, "k": tf.int32}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_gradient_matches_finite_differences(case, capsys):
    with tf.Graph().as_default():
        flags = {name: tf.placeholder(dtype, [], name=name)
                 for name, dtype in _FLAG_DTYPES.items()
                 if any(name in feed for feed in case.flags)}
        xs = [tf.placeholder(tf.float64, v.shape) for v in case.inputs]
        y = case.fn(*xs)
        y_shape = y.shape.as_list()
        with tf.Session():
            for feed in case.flags:
                extra = {flags[name]: value for name, value in feed.items()}
                error = tf.test.compute_gradient_error(
                    xs, [list(v.shape) for v in case.inputs], y, y_shape,
                    x_init_value=list(case.inputs), extra_feed_dict=extra, delta=1e-6)
                assert error < 1e-6, (case.id, feed, error)
    capsys.readouterr()  # tf.Print writes to stderr
