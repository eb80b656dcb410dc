"""Seed rules of framework/random_seed.py (TF1's get_seed / set_random_seed)."""
import trainflow.compat.v1 as tf
from trainflow._src.framework import random_seed


def test_no_seeds_means_nondeterministic():
    with tf.Graph().as_default():
        assert random_seed.get_seed(None) == (None, None)


def test_op_seed_only_uses_default_graph_seed():
    with tf.Graph().as_default():
        assert random_seed.get_seed(3) == (random_seed.DEFAULT_GRAPH_SEED, 3)
        assert random_seed.DEFAULT_GRAPH_SEED == 87654321


def test_graph_seed_only_uses_last_op_id():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(7)
        assert g.seed == 7
        first = random_seed.get_seed(None)
        tf.constant(1.0)
        tf.constant(2.0)
        second = random_seed.get_seed(None)
        assert first == (7, 0)
        assert second == (7, 2)


def test_both_seeds_and_truncation():
    with tf.Graph().as_default():
        tf.set_random_seed(2**31 - 1 + 4)
        assert random_seed.get_seed(2**31 + 9) == (4, 10)


def test_zero_zero_is_made_deterministic():
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        assert random_seed.get_seed(0) == (0, 2**31 - 1)


def test_seed_is_per_graph_and_random_namespace_alias():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        tf.random.set_random_seed(11)
    with g2.as_default():
        assert tf.random.get_seed(None) == (None, None)
    assert g1.seed == 11 and g2.seed is None
