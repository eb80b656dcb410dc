"""tf.data's seeds, ported from TF's python/data/util/random_seed_test (2 methods)."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.data import random_seed as data_random_seed
from trainflow._src.framework import random_seed

INTMAX = 2**31 - 1


@pytest.mark.parametrize("tensor_seed", [False, True], ids=["python", "tensor"])
@pytest.mark.parametrize("graph_seed,op_seed,want", [
    (None, 1, (random_seed.DEFAULT_GRAPH_SEED, 1)), (1, 1, (1, 1)), (0, 0, (0, INTMAX)),
    (INTMAX, 0, (0, INTMAX)), (0, INTMAX, (0, INTMAX))])
def test_random_seed(graph_seed, op_seed, want, tensor_seed):  # testRandomSeed
    with tf.Graph().as_default():
        tf.set_random_seed(graph_seed)
        seed = tf.constant(op_seed, dtype=tf.int64) if tensor_seed else op_seed
        g_seed, o_seed = data_random_seed.get_seed(seed)
        with tf.Session() as sess:
            assert tuple(sess.run([g_seed, o_seed])) == want


def test_random_seed_from_last_op_id():  # testRandomSeed, graph-only part
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        want = (1, g._last_id)
        g_seed, o_seed = data_random_seed.get_seed(None)
        with tf.Session() as sess:
            assert tuple(sess.run([g_seed, o_seed])) == want


def test_nondeterministic_random_seed():  # testNondeterministicRandomSeed
    # TF 1.15: with no seeds both are 0, which the kernels take as "draw fresh seeds";
    # so two unseeded shuffles of the same graph give different orders.
    with tf.Graph().as_default():
        g_seed, o_seed = data_random_seed.get_seed(None)
        with tf.Session() as sess:
            assert tuple(sess.run([g_seed, o_seed])) == (0, 0)
        iterator = tf.data.Dataset.range(50).shuffle(50).make_initializable_iterator()
        batch = []
        get_next = iterator.get_next()
        with tf.Session() as sess:
            for _ in range(2):
                sess.run(iterator.initializer)
                batch.append([sess.run(get_next) for _ in range(50)])
    assert batch[0] != batch[1] and sorted(batch[0]) == sorted(batch[1])
