"""The functional and parallel tf.data pipelines against TensorFlow (tf.compat.v1 graph
mode): the same pipelines give the same elements, in the same order, or the same
error class."""
import json
import textwrap

import numpy as np

from tf_interop import needs_tf, run_json

PIPELINES = [
    "D.range(20).map(lambda x: x * 3, num_parallel_calls=2)",
    "D.range(20).map(lambda x: (x, tf.cast(x, tf.float32) / 2), num_parallel_calls=4)",
    "D.range(7).map(lambda x: tf.py_func(lambda v: v * 2, [x], tf.int64), "
    "num_parallel_calls=3)",
    "D.range(105).map(lambda x: tf.py_func(stop_at_100, [x], tf.int64), num_parallel_calls=2)",
    "D.range(1, 6).interleave(lambda x: D.from_tensors(x).repeat(x), 2, 3)",
    "D.range(1, 6).interleave(lambda x: D.range(x), 3, 1, num_parallel_calls=2)",
    "D.from_tensor_slices(np.int64([4, 0, 6])).repeat(2).interleave("
    "lambda x: D.from_tensors(x).repeat(x), 7, 2)",
    "D.range(1, 6).apply(E.parallel_interleave(lambda x: D.range(x), 2, 2))",
    "D.range(10).apply(E.map_and_batch(lambda x: x * 2, 4))",
    "D.range(10).apply(E.map_and_batch(lambda x: x * 2, 4, drop_remainder=True))",
    "D.from_tensors(1).repeat(8).apply(E.scan([0, 1], lambda a, _: ([a[1], a[0] + a[1]], "
    "a[1])))",
    "D.range(5).apply(E.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, (s, x * 2))))",
    "D.range(10).apply(E.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2), 2))",
    "D.range(12).apply(E.group_by_window(lambda x: x % 2, lambda k, w: w.map(lambda v: v + k),"
    " window_size_func=lambda k: k + 2))",
    "D.range(10).apply(E.group_by_reducer(lambda x: x % 3, E.Reducer(lambda k: np.int64(0), "
    "lambda s, x: s + x, lambda s: s * 10)))",
    "D.range(9).apply(E.bucket_by_sequence_length(lambda x: tf.cast(x, tf.int32), [3, 6], "
    "[2, 2, 3], no_padding=True))",
    "D.range(9).apply(E.bucket_by_sequence_length(lambda x: x, [3, 6], [2, 2, 3], "
    "no_padding=True))",
    "E.choose_from_datasets([D.range(3), D.range(10, 13)], "
    "D.from_tensor_slices(np.int64([1, 0, 1, 1, 0, 1, 0])))",
    "D.from_generator(lambda: iter([(1, [1.0]), (2, [2.0, 3.0])]), (tf.int64, tf.float32),"
    " ([], [None]))",
    "D.from_generator(lambda n: range(n), tf.int64, [], args=(tf.constant(4, tf.int64),))",
    "D.from_generator(lambda: iter([[1, 2], [3]]), tf.int64, [2])",
    "D.range(3).apply(E.prefetch_to_device('/cpu:0')).apply(E.copy_to_device('/cpu:0'))",
    "D.range(4).map(lambda x: tf.check_numerics(1.0 / tf.cast(x - 2, tf.float32), 'inf'),"
    " num_parallel_calls=2)",
    "D.range(6).map(lambda x: tf.cast(x % 2, tf.int32)).apply(E.rejection_resample("
    "lambda c: c, [0.5, 0.5], [0.5, 0.5]))",
    "D.range(6).map(lambda x: tf.cast(x % 2, tf.int32)).apply(E.rejection_resample("
    "lambda c: c, [0.0, 1.0], [0.5, 0.5]))",
    "D.range(1, 7).apply(E.parallel_interleave(lambda x: D.range(x), 3, 2, False, 1, 2))",
    "D.range(10).map(lambda x: {'k': x % 3, 'v': x}).apply(E.group_by_window("
    "lambda d: d['k'], lambda k, w: w.map(lambda d: d['v'] * 10 + k), 2))",
    "D.range(5).apply(E.scan({'a': tf.constant(0, tf.int64)}, "
    "lambda s, x: ({'a': s['a'] + x}, s['a'])))",
    "D.range(4).apply(E.group_by_window(lambda x: x, lambda k, w: w, "
    "window_size_func=lambda k: k * 0))",
    "E.choose_from_datasets([D.range(2)], D.from_tensors(np.int64(3)))",
    "D.range(3).interleave(lambda x: D.range(x), 0)",
    "D.range(3).map(lambda x: x, num_parallel_calls=-3)",
    "D.range(3).prefetch(-5)",
    "D.range(5).apply(E.map_and_batch(lambda x: tf.check_numerics("
    "1.0 / tf.cast(x - 1, tf.float32), 'inf'), 2))",
]

SCRIPT = textwrap.dedent("""
    def run_pipelines(tf, pipelines):
        import numpy as np
        D, E = tf.data.Dataset, tf.data.experimental

        def stop_at_100(v):
            if v == 100:
                raise StopIteration()
            return v

        def plain(v):
            if isinstance(v, (tuple, list)):
                return [plain(x) for x in v]
            v = np.asarray(v)
            return v.tolist() if v.dtype != object else [x.decode() for x in v.ravel()]

        out = []
        for text in pipelines:
            with tf.Graph().as_default():
                try:
                    dataset = eval(text, {"tf": tf, "D": D, "E": E, "np": np,
                                          "stop_at_100": stop_at_100})
                except Exception as e:  # noqa: BLE001 - the class is what is compared
                    out.append([["build error", type(e).__name__]])
                    continue
                get_next = tf.data.make_one_shot_iterator(dataset).get_next()
                got = []
                with tf.Session() as sess:
                    for _ in range(200):
                        try:
                            got.append(["ok", plain(sess.run(get_next))])
                        except tf.errors.OutOfRangeError:
                            break
                        except tf.errors.OpError as e:
                            got.append(["error", type(e).__name__])
            out.append(got)
        return out
""")


@needs_tf
def test_pipelines_match_tf():
    theirs = run_json(SCRIPT + textwrap.dedent("""
        import json
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
        print(json.dumps(run_pipelines(tf, json.loads(%r))))
    """) % json.dumps(PIPELINES))
    namespace = {}
    exec(SCRIPT, namespace)  # noqa: S102 - the same script both sides
    import trainflow.compat.v1 as tf
    ours = namespace["run_pipelines"](tf, PIPELINES)
    for text, mine, tf_elements in zip(PIPELINES, ours, theirs):
        assert _close(mine, tf_elements), (text, mine, tf_elements)


def _close(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return bool(np.allclose(a, b))
