"""embedding_lookup over tensors, Variables, shard lists and PartitionedVariables with
the "mod" and "div" strategies, max_norm, IndexedSlices gradients, and
embedding_lookup_sparse's combiners, against NumPy."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

RNG = np.random.RandomState(42)


def shards_for(full, sizes, strategy):
    """Splits the rows of `full` into shards of `sizes` as the strategy places ids."""
    n = len(sizes)
    if strategy == "mod":
        return [full[s::n] for s in range(n)]
    bounds = np.cumsum([0] + list(sizes))
    return [full[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def div_sizes(total, n):
    return [total // n + (1 if s < total % n else 0) for s in range(n)]


@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("total, n, ids_shape", [(10, 3, [7]), (11, 4, [3, 5]), (5, 5, [2, 2, 2]),
                                                  (9, 2, [])])
def test_sharded_lookup_matches_numpy(strategy, total, n, ids_shape):
    full = RNG.randn(total, 4).astype(np.float32)
    sizes = [len(range(s, total, n)) for s in range(n)] if strategy == "mod" else \
        div_sizes(total, n)
    shards = shards_for(full, sizes, strategy)
    assert [len(s) for s in shards] == sizes
    ids = RNG.randint(0, total, size=ids_shape).astype(np.int64)
    with tf.Graph().as_default():
        out = tf.nn.embedding_lookup([tf.constant(s) for s in shards], tf.constant(ids),
                                     partition_strategy=strategy)
        assert out.shape.as_list() == list(ids_shape) + [4]
        with tf.Session() as sess:
            got = sess.run(out)
    np.testing.assert_array_equal(got, full[ids])


def test_sharded_lookup_with_unknown_shard_sizes():
    full = RNG.randn(7, 3).astype(np.float32)
    shards = shards_for(full, div_sizes(7, 2), "div")
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.float32, [None, 3]) for _ in shards]
        ids = tf.placeholder(tf.int32, [None])
        out = tf.nn.embedding_lookup(phs, ids, partition_strategy="div")
        assert out.shape.as_list() == [None, 3]
        with tf.Session() as sess:
            got = sess.run(out, {phs[0]: shards[0], phs[1]: shards[1], ids: [6, 0, 3, 4]})
    np.testing.assert_array_equal(got, full[[6, 0, 3, 4]])


def test_single_params_builds_gather_and_identity():
    with tf.Graph().as_default() as g:
        out = tf.nn.embedding_lookup(tf.ones([5, 3]), tf.constant([0, 1]))
        assert out.name == "embedding_lookup/Identity:0"
        assert g.get_operation_by_name("embedding_lookup").type == "GatherV2"
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 7 is not "
                                                                     r"in \[0, 5\)"):
                sess.run(tf.nn.embedding_lookup(tf.ones([5, 3]), tf.constant([7])))


def test_variables_and_partitioned_variables():
    full = np.arange(21, dtype=np.float32).reshape(7, 3)
    with tf.Graph().as_default():
        v = tf.Variable(full)
        shard_vars = [tf.Variable(s) for s in shards_for(full, [4, 3], "mod")]
        def init(shape, dtype=None, partition_info=None):
            start = partition_info.single_offset(shape)
            return tf.constant(full[start:start + shape[0]])

        part = tf.get_variable("emb", shape=[7, 3], partitioner=tf.fixed_size_partitioner(3),
                               initializer=init)
        assert [p.shape.as_list()[0] for p in part] == [3, 2, 2]
        ids = tf.constant([[6, 1], [0, 4]])
        outs = [tf.nn.embedding_lookup(v, ids),
                tf.nn.embedding_lookup(shard_vars, ids),
                tf.nn.embedding_lookup(part, ids, partition_strategy="div")]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(outs)
    for g in got:
        np.testing.assert_array_equal(g, full[[[6, 1], [0, 4]]])


def test_max_norm_clips_each_embedding():
    params = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0], [6.0, 8.0]], np.float32)
    with tf.Graph().as_default():
        single = tf.nn.embedding_lookup(params, [[0, 1], [2, 3]], max_norm=1.0)
        sharded = tf.nn.embedding_lookup([params[:2], params[2:]], [0, 1, 2, 3],
                                         partition_strategy="div", max_norm=2.0)
        with tf.Session() as sess:
            a, b = sess.run([single, sharded])
    np.testing.assert_allclose(a, [[[0.6, 0.8], [0.3, 0.4]], [[0.0, 0.0], [0.6, 0.8]]],
                               rtol=1e-6)
    np.testing.assert_allclose(b, [[1.2, 1.6], [0.3, 0.4], [0.0, 0.0], [1.2, 1.6]], rtol=1e-6)


def test_lookup_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Length of params is currently 0. Need at least "
                                             "one param."):
            tf.nn.embedding_lookup([], [0])
        with pytest.raises(ValueError, match="Unrecognized partition strategy: foo.Must be one "
                                             "of either `mod` or `div`."):
            tf.nn.embedding_lookup([tf.ones([3, 3]), tf.ones([2, 3])], [0],
                                   partition_strategy="foo")


def _gradients(ys, xs, **kwargs):
    return tf.gradients(ys, xs, **kwargs)


def test_gradient_is_indexed_slices_of_the_looked_up_rows():
    with tf.Graph().as_default():
        params = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
        ids = tf.constant([[3, 1], [3, 0]])
        out = tf.nn.embedding_lookup(params, ids)
        upstream = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
        (grad,) = _gradients(out, params, grad_ys=tf.constant(upstream))
        assert isinstance(grad, tf.IndexedSlices)
        with tf.Session() as sess:
            value = sess.run(grad)
    np.testing.assert_array_equal(value.indices, [3, 1, 3, 0])
    np.testing.assert_array_equal(value.values, upstream.reshape(4, 3))
    np.testing.assert_array_equal(value.dense_shape, [4, 3])


def test_sharded_gradients_touch_only_their_rows():
    full = np.arange(15, dtype=np.float32).reshape(5, 3)
    shards = shards_for(full, [3, 2], "mod")
    with tf.Graph().as_default():
        params = [tf.constant(s) for s in shards]
        out = tf.nn.embedding_lookup(params, tf.constant([4, 0, 3]))
        grads = _gradients(out, params, grad_ys=tf.ones([3, 3]))
        with tf.Session() as sess:
            values = sess.run(grads)
    dense = []
    for value, shard in zip(values, shards):
        d = np.zeros_like(shard)
        np.add.at(d, value.indices, value.values)
        dense.append(d)
    # Shard 0 holds ids 0, 2, 4 and shard 1 ids 1, 3 (mod); ids 4, 0 and 3 were looked up.
    np.testing.assert_array_equal(dense[0], [[1, 1, 1], [0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(dense[1], [[0, 0, 0], [1, 1, 1]])


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [True, False])
def test_embedding_lookup_sparse_combiners(combiner, weighted):
    params = RNG.randn(6, 2).astype(np.float32)
    indices = np.array([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], np.int64)
    ids = np.array([1, 3, 0, 5, 1, 1], np.int64)
    weights = np.array([0.5, 2.0, 1.0, 1.5, -1.0, 3.0], np.float32)
    w = weights if weighted else np.ones(6, np.float32)
    want = np.zeros((4, 2))
    for row in range(4):
        sel = indices[:, 0] == row
        if not sel.any():
            continue
        total = (params[ids[sel]] * w[sel, None]).sum(0)
        norm = {"sum": 1.0, "mean": w[sel].sum(), "sqrtn": np.sqrt((w[sel] ** 2).sum())}
        want[row] = total / norm[combiner]
    with tf.Graph().as_default():
        sp_ids = tf.SparseTensor(indices, ids, [4, 3])
        sp_w = tf.SparseTensor(indices, weights, [4, 3]) if weighted else None
        out = tf.nn.embedding_lookup_sparse([tf.constant(params[:3]), tf.constant(params[3:])],
                                            sp_ids, sp_w, combiner=combiner,
                                            partition_strategy="div")
        with tf.Session() as sess:
            got = sess.run(out)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_embedding_lookup_sparse_errors():
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [1, 1])
        with pytest.raises(ValueError, match="combiner must be one of 'mean', 'sqrtn' or 'sum'"):
            tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), sp, None, combiner="max")
        with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
            tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), tf.constant([1]), None)
        with pytest.raises(TypeError, match="sp_weights must be either None or SparseTensor"):
            tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), sp, tf.constant([1.0]))
