"""shard, ported from TF's shard_dataset_op_test (11 methods). TF 1.15's shard is the
ShardDataset op, so bad arguments are InvalidArgumentError when the pipeline starts (the
r1.12 file's Python-side ValueError predates the op; TF 2.21's shard_test checks the
InvalidArgumentError)."""
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset


def _elements(dataset):
    with tf.Session() as sess:
        get_next = dataset.make_one_shot_iterator().get_next()
        out = []
        while True:
            try:
                out.append(sess.run(get_next))
            except tf.errors.OutOfRangeError:
                return out


# (TF method, builder, expected elements)
CASES = [
    ("testSimpleCase", lambda: D.range(10).shard(5, 2), [2, 7]),
    ("testNestedData", lambda: D.zip((D.range(10), D.range(10, 0, -1))).shard(5, 2),
     [(2, 8), (7, 3)]),
    ("testOffsetZero", lambda: D.range(10).shard(5, 0), [0, 5]),
    ("testIteratorEndsBeforeFirstElem", lambda: D.range(1).shard(5, 2), []),
    ("testLargerWorkerPool", lambda: D.range(10).shard(7, 5), [5]),
    ("testIndexEqualsNumShards", lambda: D.range(10).shard(5, 4), [4, 9]),
    ("testIndexEqualsNumShards2", lambda: D.range(10).shard(4, 3), [3, 7]),
]


@pytest.mark.parametrize("name,build,want", CASES, ids=[c[0] for c in CASES])
def test_shard(name, build, want):
    with tf.Graph().as_default():
        assert [tuple(e) if isinstance(e, tuple) else e for e in _elements(build())] == want


# (TF method, num_shards, index, message)
ERRORS = [
    ("testOffsetGreaterNumShards", 5, 7, r"Index must be between 0 and 4 \(currently index = 7\)"),
    ("testNegativeOffset", 5, -3, r"Index must be between 0 and 4 \(currently index = -3\)"),
    ("testNegativeNumShards", -3, 1, r"Number of shards must be greater than zero"),
    ("testZeroNumShards", 0, 1, r"Number of shards must be greater than zero \(currently "
                                r"num_shards = 0\)"),
]


@pytest.mark.parametrize("name,num_shards,index,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_shard_argument_errors(name, num_shards, index, message):
    with tf.Graph().as_default():
        iterator = D.range(10).shard(num_shards, index).make_initializable_iterator()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(iterator.initializer)


def test_shard_cardinality():
    with tf.Graph().as_default():
        counts = [tf.data.experimental.cardinality(D.range(10).shard(4, i)) for i in range(4)]
        with tf.Session() as sess:
            assert sess.run(counts) == [3, 3, 2, 2]
