"""graph_walk: reachability (backward, forward, with links) and run order."""
import trainflow.compat.v1 as tf
from trainflow._src.framework import graph_walk


def _chain():
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        c = tf.add(a, b, name="c")
        d = tf.identity(c, name="d")
        with tf.control_dependencies([b]):
            e = tf.identity(a, name="e")
        tf.identity(a, name="unused")
    return g, a.op, b.op, c.op, d.op, e.op


def _inputs(op):
    return [t.op for t in op.inputs]


def test_reachable_backward_and_forward():
    g, a, b, c, d, e = _chain()
    assert graph_walk.reachable([d], _inputs) == {a, b, c, d}
    forward = graph_walk.reachable([b], lambda op: [c for t in op.outputs
                                                    for c in t.consumers()])
    assert forward == {b, c, d}
    assert [op.name for op in graph_walk.in_creation_order(forward)] == ["b", "c", "d"]


def test_reachable_with_links_leads_back_to_the_root():
    g, a, b, c, d, e = _chain()
    links = graph_walk.reachable_with_links([d], lambda op: [(t.op, t) for t in op.inputs])
    assert links[d] is None
    assert links[c] == (d, d.inputs[0])
    assert links[a] == (c, c.inputs[0])
    assert e not in links


def test_topological_order_runs_ops_as_they_become_ready_and_follows_control_inputs():
    g, a, b, c, d, e = _chain()
    order = graph_walk.topological_order([e, d, c, b, a])
    # c and e become ready together (after b), ties by creation; d only after c.
    assert [op.name for op in order] == ["a", "b", "c", "e", "d"]
    assert graph_walk.op_dependencies(e) == [a, b]


def test_topological_order_leaves_out_a_cycle():
    g, a, b, c, d, e = _chain()
    d._update_input(0, d.outputs[0])
    order = graph_walk.topological_order([a, b, c, d])
    assert d not in order and [op.name for op in order] == ["a", "b", "c"]


def test_deep_chains_do_not_recurse():
    with tf.Graph().as_default():
        t = tf.constant(0.0)
        for _ in range(3000):
            t = tf.identity(t)
    ops = graph_walk.reachable([t.op], _inputs)
    assert len(graph_walk.topological_order(ops)) == 3001
