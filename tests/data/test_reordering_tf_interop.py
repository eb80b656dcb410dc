"""The reordering area against TensorFlow: the same pipelines give the same elements (or
the same error class), and the GraphDef trainflow builds for a pipeline runs in TensorFlow
with the same elements (TF's op types, attrs and functions)."""
import json
import textwrap

import pytest

from tf_interop import needs_tf, run_json

# Pipelines as source over `tf`, `np`, `D` (tf.data.Dataset), `X` (tf.data.experimental).
PIPELINES = {
    "padded_batch": "D.range(7).map(lambda x: tf.fill([x], x)).padded_batch(3, [None])",
    "padded_batch_v2": "D.range(7).map(lambda x: tf.fill([x], x))"
                       ".padded_batch(3, [5], tf.constant(-1, tf.int64), drop_remainder=True)",
    "padded_batch_strings": "D.from_tensor_slices(['a', 'bb', 'ccc']).map("
                            "lambda s: tf.string_split([s], '').values)"
                            ".padded_batch(2, [None], padding_values='<p>')",
    "padded_batch_too_small": "D.range(4).map(lambda x: tf.fill([x], x)).padded_batch(4, [2])",
    "window": "D.range(7).window(3, 2).flat_map(lambda x: x.batch(3))",
    "window_stride_drop": "D.range(10).window(3, 1, 2, True).flat_map(lambda x: x.batch(3))",
    "window_tuple": "D.zip((D.range(5), D.range(5, 10))).window(2, 3)"
                    ".flat_map(lambda a, b: D.zip((a.batch(2), b.batch(2))))",
    "unbatch": "D.range(7).batch(3).unbatch()",
    "unbatch_sparse": "D.from_tensors(tf.SparseTensor([[0, 1], [2, 0]], [1, 2], [3, 4]))"
                      ".unbatch()",
    "shard": "D.range(10).shard(3, 1)",
    "shard_bad_index": "D.range(10).shard(3, 3)",
    "cache_repeat": "D.range(4).cache().repeat(2)",
    "shuffle_sorted": "D.range(20).shuffle(7, seed=3).batch(20).map(tf.sort)",
    "sparse_batch": "D.range(5).map(lambda i: tf.SparseTensor("
                    "tf.expand_dims(tf.range(i), 1), tf.fill([tf.to_int32(i)], i), [i]))"
                    ".batch(2)",
    "sparse_slices": "D.from_tensor_slices(tf.SparseTensor([[0, 0], [1, 1], [1, 2]],"
                     " [1., 2., 3.], [3, 4]))",
    "sparse_tensor_slices": "D.from_sparse_tensor_slices(tf.SparseTensor("
                            "[[0, 0], [1, 1], [1, 2]], [1., 2., 3.], [3, 4]))",
    "dense_to_sparse": "D.range(5).map(lambda x: tf.fill([x], x))"
                       ".apply(X.dense_to_sparse_batch(2, [4]))",
    "take_while": "D.range(10).apply(X.take_while(lambda x: x < 3))",
    "unique": "D.from_tensor_slices([3, 1, 3, 2, 1]).apply(X.unique())",
    "enumerate": "D.from_tensor_slices(['a', 'b']).apply(X.enumerate_dataset(4))",
    "ignore_errors": "D.from_tensor_slices(np.float32([1, np.nan, 2]))"
                     ".map(lambda x: tf.check_numerics(x, 'x')).apply(X.ignore_errors())",
}
VALUES = {
    "reduce": "D.range(6).reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * 2))",
    "single_element": "X.get_single_element(D.range(3).skip(2).map(lambda x: (x, [x, x])))",
    "cardinality": "[X.cardinality(d) for d in (D.range(5).shard(2, 0), D.range(5).cache(),"
                   " D.range(7).window(3, 2), D.range(5).padded_batch(2, []),"
                   " D.range(5).shuffle(2).repeat(), D.range(6).batch(2).unbatch())]",
}

SCRIPT = textwrap.dedent("""
    def run_cases(tf, pipelines, values):
        import numpy as np
        D, X = tf.data.Dataset, tf.data.experimental

        def plain(v):
            if isinstance(v, tf.SparseTensorValue):
                return {"indices": plain(v.indices), "values": plain(v.values),
                        "dense_shape": plain(v.dense_shape)}
            if isinstance(v, dict):
                return {k: plain(x) for k, x in sorted(v.items())}
            if isinstance(v, (tuple, list)):
                return [plain(x) for x in v]
            if isinstance(v, bytes):
                return v.decode()
            v = np.asarray(v)
            if v.dtype == object or v.dtype.kind == "S":
                return [plain(x) for x in v] if v.ndim else plain(v[()])
            return v.tolist()

        out = {}
        names = {"tf": tf, "np": np, "D": D, "X": X}
        for name, src in list(pipelines.items()) + list(values.items()):
            with tf.Graph().as_default():
                try:
                    made = eval(src, names)
                    with tf.Session() as sess:
                        if name in pipelines:
                            it = tf.data.make_initializable_iterator(made)
                            nxt = it.get_next()
                            sess.run(it.initializer)
                            got = []
                            while True:
                                try:
                                    got.append(plain(sess.run(nxt)))
                                except tf.errors.OutOfRangeError:
                                    break
                        else:
                            got = plain(sess.run(made))
                    out[name] = ["ok", got]
                except Exception as e:  # noqa: BLE001 - the class is what is compared
                    out[name] = ["error", type(e).__name__]
        return out
""")

TF_MAIN = textwrap.dedent("""
    import json, sys
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    spec = json.load(sys.stdin)
    print(json.dumps(run_cases(tf, spec["pipelines"], spec["values"])))
""")


def _ours(pipelines, values):
    import trainflow.compat.v1 as tf
    env = {}
    exec(SCRIPT, env)  # noqa: S102 - the script above
    return json.loads(json.dumps(env["run_cases"](tf, pipelines, values)))


@pytest.fixture(scope="module")
def tf_results():
    return run_json(SCRIPT + TF_MAIN, spec={"pipelines": PIPELINES, "values": VALUES})


@needs_tf
@pytest.mark.parametrize("name", sorted(PIPELINES) + sorted(VALUES))
def test_same_elements_as_tf(name, tf_results):
    pipelines = {name: PIPELINES[name]} if name in PIPELINES else {}
    values = {name: VALUES[name]} if name in VALUES else {}
    assert _ours(pipelines, values)[name] == tf_results[name]


GRAPH_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    spec = json.load(sys.stdin)
    out = {}
    for name, case in spec.items():
        gd = tf.GraphDef()
        gd.ParseFromString(bytes.fromhex(case["graph_def"]))
        with tf.Graph().as_default():
            tf.import_graph_def(gd, name="")
            with tf.Session() as sess:
                sess.run(case["init"])
                got = []
                while True:
                    try:
                        got.append([np.asarray(v).tolist() for v in sess.run(case["fetches"])])
                    except tf.errors.OutOfRangeError:
                        break
        out[name] = got
    print(json.dumps(out, default=lambda b: b.decode()))
""")

GRAPH_CASES = ["padded_batch", "padded_batch_v2", "window", "window_tuple", "unbatch", "shard",
               "cache_repeat", "sparse_batch", "dense_to_sparse", "take_while", "unique",
               "enumerate"]


@needs_tf
def test_graph_defs_run_in_tf():
    import numpy as np

    import trainflow.compat.v1 as tf
    cases, ours = {}, {}
    for name in GRAPH_CASES:
        with tf.Graph().as_default() as g:
            dataset = eval(PIPELINES[name], {"tf": tf, "np": np, "D": tf.data.Dataset,  # noqa: S307
                                             "X": tf.data.experimental})
            it = dataset.make_initializable_iterator()
            nxt = tf.nest.flatten(it.get_next(), expand_composites=True)
            fetches = [t.name for t in nxt]
            cases[name] = {"graph_def": g.as_graph_def().SerializeToString().hex(),
                           "init": it.initializer.name, "fetches": fetches}
            got = []
            with tf.Session() as sess:
                sess.run(it.initializer)
                while True:
                    try:
                        got.append([np.asarray(v).tolist() for v in sess.run(nxt)])
                    except tf.errors.OutOfRangeError:
                        break
            ours[name] = json.loads(json.dumps(got, default=lambda b: b.decode()))
    theirs = run_json(GRAPH_SCRIPT, spec=cases)
    assert {k: v for k, v in ours.items() if theirs[k] != v} == {}


NAMES_SCRIPT = textwrap.dedent("""
    def graph_ops(tf, cases):
        import numpy as np
        names = {"tf": tf, "np": np, "D": tf.data.Dataset, "X": tf.data.experimental}
        out = {}
        for name, src in cases.items():
            with tf.Graph().as_default() as g:
                eval(src, names)
                # TF 1.15's tf.where built Select; TF 2.21's compat.v1 builds SelectV2.
                out[name] = [[o.name, "Select" if o.type == "SelectV2" else o.type]
                             for o in g.get_operations()]
        return out
""")
NAME_CASES = {
    "shuffle": "D.range(10).shuffle(5, seed=3)",
    "shuffle_unseeded": "D.range(10).shuffle(5)",
    "padded_batch": "D.range(10).map(lambda x: tf.fill([x], x)).padded_batch(2, [None])",
    "cache": "D.range(3).cache()",
    "window": "D.range(3).window(2)",
    "shard": "D.range(3).shard(2, 0)",
    "reduce": "D.range(3).reduce(np.int64(0), lambda s, x: s + x)",
    "shuffle_and_repeat": "D.range(3).apply(X.shuffle_and_repeat(2, seed=1))",
    "unbatch": "D.range(3).batch(2).unbatch()",
    "dense_to_sparse_batch": "D.range(3).map(lambda x: tf.fill([x], x))"
                             ".apply(X.dense_to_sparse_batch(2, [3]))",
    "get_single_element": "X.get_single_element(D.range(1))",
    "cardinality": "X.cardinality(D.range(1))",
}


@needs_tf
def test_graphs_have_tf_op_names_and_types():
    import trainflow.compat.v1 as tf
    theirs = run_json(NAMES_SCRIPT + TF_MAIN.replace(
        'run_cases(tf, spec["pipelines"], spec["values"])', "graph_ops(tf, spec)"),
        spec=NAME_CASES)
    env = {}
    exec(NAMES_SCRIPT, env)  # noqa: S102 - the script above
    ours = json.loads(json.dumps(env["graph_ops"](tf, NAME_CASES)))
    assert {k: v for k, v in ours.items() if v != theirs[k]} == {}


CACHE_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    spec = json.load(sys.stdin)

    def read(prefix, count):
        ds = tf.data.Dataset.from_tensor_slices(
            (np.arange(5)[:count], np.array([b"a", b"b", b"c", b"d", b"e"])[:count]))
        it = tf.data.make_initializable_iterator(ds.cache(prefix))
        nxt = it.get_next()
        out = []
        with tf.Session() as sess:
            sess.run(it.initializer)
            while True:
                try:
                    a, b = sess.run(nxt)
                except tf.errors.OutOfRangeError:
                    return out
                out.append([int(a), b.decode()])

    # Replays trainflow's cache (its upstream here is empty), then writes its own.
    print(json.dumps({"replayed": read(spec["ours"], 0), "written": read(spec["theirs"], 5)}))
""")


@needs_tf
def test_file_cache_is_shared_with_tf(tmp_path):
    import numpy as np

    import trainflow.compat.v1 as tf
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")

    def read(prefix, count):
        with tf.Graph().as_default():
            ds = tf.data.Dataset.from_tensor_slices(
                (np.arange(5)[:count], np.array([b"a", b"b", b"c", b"d", b"e"])[:count]))
            it = ds.cache(prefix).make_initializable_iterator()
            nxt = it.get_next()
            out = []
            with tf.Session() as sess:
                sess.run(it.initializer)
                while True:
                    try:
                        a, b = sess.run(nxt)
                    except tf.errors.OutOfRangeError:
                        return out
                    out.append([int(a), b.decode()])

    want = [[i, c] for i, c in enumerate("abcde")]
    assert read(ours, 5) == want
    tf_side = run_json(CACHE_SCRIPT, spec={"ours": ours, "theirs": theirs})
    assert tf_side == {"replayed": want, "written": want}
    assert read(theirs, 0) == want
