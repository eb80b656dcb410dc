"""The host iterators of the reordering area keep the ElementIterator protocol: a pass
saved part way and restored into a fresh iterator over the same dataset goes on with the
elements the uninterrupted pass gives, and `save()` is plain data."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.dataset import dataset_value as dv

D = tf.data.Dataset
X = tf.data.experimental

PIPELINES = [
    ("shuffle", lambda: D.range(20).shuffle(6, seed=4)),
    ("shuffle_repeat", lambda: D.range(5).shuffle(5, seed=1).repeat(3)),
    ("shuffle_and_repeat", lambda: D.range(5).apply(X.shuffle_and_repeat(3, 2, seed=2))),
    ("padded_batch", lambda: D.range(9).map(lambda x: tf.fill([x], x)).padded_batch(2, [None])),
    ("window", lambda: D.range(9).window(3, 2).flat_map(lambda w: w.batch(3))),
    ("unbatch", lambda: D.range(9).batch(4).unbatch()),
    ("shard", lambda: D.range(20).shard(3, 2)),
    ("memory_cache", lambda: D.range(6).cache().repeat(2)),
    ("take_while", lambda: D.range(20).apply(X.take_while(lambda x: x < 9))),
    ("unique", lambda: D.from_tensor_slices([1, 2, 1, 3, 2, 4]).apply(X.unique())),
    ("ignore_errors", lambda: D.from_tensor_slices(np.float32([1, np.nan, 2, 3]))
     .map(lambda x: tf.check_numerics(x, "x")).apply(X.ignore_errors())),
    ("dense_to_sparse", lambda: D.range(7).map(lambda x: tf.fill([x], x))
     .apply(X.dense_to_sparse_batch(3, [6]))),
    ("sparse_slices", lambda: D.from_sparse_tensor_slices(
        tf.SparseTensor([[0, 0], [2, 1], [3, 3]], [1., 2., 3.], [5, 4]))),
]


def _plain(element):
    return [np.asarray(c).tolist() if np.asarray(c).dtype != object
            else [np.asarray(p).tolist() for p in c] for c in element]


def _all(iterator):
    out = []
    while True:
        element = iterator.next(None)
        if element is dv.END:
            return out
        out.append(_plain(element))


@pytest.mark.parametrize("cut", [0, 1, 3])
@pytest.mark.parametrize("name,build", PIPELINES, ids=[p[0] for p in PIPELINES])
def test_save_restore_goes_on(name, build, cut):
    with tf.Graph().as_default():
        dataset = build()
        with tf.Session() as sess:
            value = dv.as_dataset(sess.run(dataset._variant_tensor))
            reference = value.iterator()
            head = [_plain(reference.next(None)) for _ in range(cut)]
            saved = reference.save()
            rest = _all(reference)
            fresh = value.iterator()
            fresh.restore(saved)
            assert _all(fresh) == rest
            assert len(head) == cut
            reference.close()
            fresh.close()
