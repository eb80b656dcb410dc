"""A switch_case graph (its StatelessCase op, the branch functions in the library and
the gradient's Case) exported as a GraphDef: trainflow imports and runs it, and so does
TensorFlow."""
import numpy as np

import trainflow.compat.v1 as tf
from tf_interop import needs_tf, run_graph_def

FEEDS = [{"i:0": k} for k in (0, 1, 2, 5, -1)]
WANT = [[2.0, 1.0], [4.0, 2.0], [4.0, 4.0], [4.0, 4.0], [4.0, 4.0]]


def _graph():
    g = tf.Graph()
    with g.as_default():
        i = tf.placeholder(tf.int32, [], name="i")
        x = tf.placeholder_with_default(2., [], name="x")
        r = tf.switch_case(i, [lambda: x * 1., lambda: x * 2., lambda: tf.square(x)])
        grad = tf.gradients(r, x)[0]
    return g, [r.name, grad.name]


def test_round_trip_in_trainflow():
    g, fetches = _graph()
    gd = g.as_graph_def()
    # Three branches and their three gradient branches.
    assert len(gd.library.function) == 6
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            got = [sess.run(fetches, feed) for feed in FEEDS]
    np.testing.assert_allclose(got, WANT)


@needs_tf
def test_tensorflow_runs_the_exported_graph():
    g, fetches = _graph()
    got = run_graph_def(g.as_graph_def(), fetches, FEEDS)
    np.testing.assert_allclose(got, WANT)
