"""Running a tf.data pipeline to its end in a session, for the tf.data tests."""
import trainflow.compat.v1 as tf


def elements(dataset, feed_dict=None, one_shot=False, limit=10000):
    """Every element of `dataset`, as NumPy values, read through a fresh iterator."""
    with tf.Graph().as_default() if dataset is None else dataset._graph.as_default():
        if one_shot:
            iterator = tf.data.make_one_shot_iterator(dataset)
        else:
            iterator = tf.data.make_initializable_iterator(dataset)
        get_next = iterator.get_next()
        out = []
        with tf.Session() as sess:
            if not one_shot:
                sess.run(iterator.initializer, feed_dict)
            for _ in range(limit):
                try:
                    out.append(sess.run(get_next))
                except tf.errors.OutOfRangeError:
                    return out
    raise AssertionError(f"more than {limit} elements")
