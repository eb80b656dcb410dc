"""SparseCross (tf.sparse.cross / cross_hashed): TensorFlow 2.21's crosses and
FingerprintCat64 hashes (sparse inputs cross before dense ones, the last input varying
fastest; rows with an empty input give nothing)."""
import trainflow.compat.v1 as tf


def test_sparse_cross_matches_tensorflow():
    with tf.Graph().as_default(), tf.Session() as sess:
        a = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], tf.constant(["x", "y", "z", "w"]),
                            [3, 2])
        b = tf.constant([[7, 8], [9, 10], [11, 12]], tf.int64)
        c = tf.SparseTensor([[0, 0], [2, 0], [2, 1]], tf.constant([3, 4, 5], tf.int64), [3, 2])
        outs = sess.run([
            tf.sparse.cross_hashed([b, a, c], 1000), tf.sparse.cross_hashed([a, b], 0),
            tf.sparse.cross([a, b]),
            tf.sparse.cross_hashed([a, tf.constant([["p"], ["q"], ["r"]])], 50, hash_key=123)])
    # TensorFlow 2.21's values for the same program.
    want = [
        ([[0, 0], [0, 1], [0, 2], [0, 3], [2, 0], [2, 1], [2, 2], [2, 3]],
         [330, 623, 704, 264, 373, 592, 346, 140], [3, 4]),
        ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [2, 0], [2, 1]],
         [757922583808110783, 6431776050907765046, 8825306719029481276, 4289681519933462648,
          7925108609278633009, 7856988662989207448, 3481264541982566617,
          7124516784124866717], [3, 4]),
        ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [2, 0], [2, 1]],
         [b"x_X_7", b"x_X_8", b"y_X_7", b"y_X_8", b"z_X_9", b"z_X_10", b"w_X_11", b"w_X_12"],
         [3, 4]),
        ([[0, 0], [0, 1], [1, 0], [2, 0]], [24, 33, 2, 42], [3, 2]),
    ]
    for got, (indices, values, shape) in zip(outs, want):
        assert got.indices.tolist() == indices
        assert got.values.tolist() == values
        assert got.dense_shape.tolist() == shape
