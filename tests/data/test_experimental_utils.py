"""tf.data.experimental's assert_cardinality, pad_to_cardinality, from_list,
from_variant / to_variant, get_structure, SHARD_HINT, AutotuneAlgorithm,
enable_debug_mode and the lookup tables from datasets (DatasetInitializer,
table_from_dataset, index_table_from_dataset), against TensorFlow 2.21 (tf.compat.v1 graph
mode): the same pipelines give the same elements or the same error class, and the
GraphDefs built here run in TensorFlow."""
import json
import textwrap

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tf_interop import needs_tf, run_json

D, X = tf.data.Dataset, tf.data.experimental

# Pipelines as source over `tf`, `D` (tf.data.Dataset), `X` (tf.data.experimental).
PIPELINES = {
    "from_list_tuples": "X.from_list([(1, 'a'), (2, 'b'), (3, 'c')])",
    "from_list_ragged": "X.from_list([[1], [2, 3], [4]])",
    "from_list_dicts": "X.from_list([{'a': 1.5, 'b': [1, 2]}, {'a': 2.5, 'b': [3, 4]}])",
    "assert_cardinality": "D.range(5).apply(X.assert_cardinality(5))",
    "assert_cardinality_fewer": "D.range(3).apply(X.assert_cardinality(5))",
    "assert_cardinality_more": "D.range(9).apply(X.assert_cardinality(5))",
    "assert_cardinality_infinite": "D.range(4).apply(X.assert_cardinality(-1))",
    "pad_to_cardinality": "D.from_tensor_slices({'x': [1., 2.], 'y': [[1, 2], [3, 4]]})"
                          ".apply(X.pad_to_cardinality(4))",
    "pad_to_cardinality_key": "D.from_tensor_slices({'x': [7]})"
                              ".apply(X.pad_to_cardinality(2, mask_key='m'))",
    "variant_round_trip": "X.from_variant(X.to_variant(D.range(3).map(lambda x: (x, 2 * x))),"
                          " X.get_structure(D.range(3).map(lambda x: (x, 2 * x))))",
}
VALUES = {
    "cardinality_asserted": "X.cardinality(D.range(3).filter(lambda x: x > 0)"
                            ".apply(X.assert_cardinality(2)))",
    "cardinality_list": "X.cardinality(X.from_list([1, 2, 3]))",
    "index_table": "X.index_table_from_dataset(D.from_tensor_slices(['a', 'b', 'c']))"
                   ".lookup(tf.constant(['c', 'x', 'a']))",
    "index_table_oov": "X.index_table_from_dataset(D.from_tensor_slices(['a', 'b']),"
                       " num_oov_buckets=3).lookup(tf.constant(['b', 'zz', 'a']))",
    "index_table_vocab_size": "X.index_table_from_dataset(D.from_tensor_slices("
                              "['a', 'b', 'c']), vocab_size=2).lookup(tf.constant(['c', 'b']))",
    "index_table_vocab_too_big": "X.index_table_from_dataset(D.from_tensor_slices("
                                 "['a', 'b']), vocab_size=3).lookup(tf.constant(['a']))",
    "table_from_dataset": "X.table_from_dataset(D.zip((D.from_tensor_slices([5, 7]),"
                          " D.from_tensor_slices([0.5, 1.5]))))"
                          ".lookup(tf.constant([7, 6, 5], tf.int32))",
    "table_strings": "X.table_from_dataset(D.from_tensor_slices((['a', 'b'], ['x', 'y'])),"
                     " default_value='?').lookup(tf.constant(['b', 'c']))",
}

SCRIPT = textwrap.dedent("""
    def run_cases(tf, pipelines, values):
        import numpy as np
        D, X = tf.data.Dataset, tf.data.experimental

        def plain(v):
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
                        sess.run(tf.tables_initializer())
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
                            shapes = tf.nest.flatten(tf.data.get_output_shapes(made))
                            got = [got, [s.as_list() for s in shapes],
                                   plain([t.name for t in tf.nest.flatten(
                                       tf.data.get_output_types(made))])]
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
    print(json.dumps(run_cases(tf, spec["pipelines"], spec["values"]), default=str))
""")


def _ours(pipelines, values):
    env = {}
    exec(SCRIPT, env)  # noqa: S102 - the script above
    return json.loads(json.dumps(env["run_cases"](tf, pipelines, values), default=str))


@pytest.fixture(scope="module")
def tf_results():
    return run_json(SCRIPT + TF_MAIN, spec={"pipelines": PIPELINES, "values": VALUES})


@needs_tf
@pytest.mark.parametrize("name", sorted(PIPELINES) + sorted(VALUES))
def test_same_as_tf(name, tf_results):
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
                while not (case.get("once") and got):
                    try:
                        got.append([np.asarray(v).tolist() for v in sess.run(case["fetches"])])
                    except tf.errors.OutOfRangeError:
                        break
        out[name] = got
    print(json.dumps(out, default=lambda b: b.decode()))
""")


@needs_tf
def test_graph_defs_run_in_tf():
    cases, ours = {}, {}
    for name in ("from_list_tuples", "from_list_ragged", "assert_cardinality",
                 "pad_to_cardinality"):
        with tf.Graph().as_default() as g:
            dataset = eval(PIPELINES[name], {"tf": tf, "D": D, "X": X})  # noqa: S307
            it = dataset.make_initializable_iterator()
            nxt = tf.nest.flatten(it.get_next())
            cases[name] = {"graph_def": g.as_graph_def().SerializeToString().hex(),
                           "init": it.initializer.name, "fetches": [t.name for t in nxt]}
            got = []
            with tf.Session() as sess:
                sess.run(it.initializer)
                while True:
                    try:
                        got.append([np.asarray(v).tolist() for v in sess.run(nxt)])
                    except tf.errors.OutOfRangeError:
                        break
            ours[name] = json.loads(json.dumps(got, default=lambda b: b.decode()))
    # experimental_deterministic=False: the OptimizeDataset ("make_sloppy") TF 1.15 adds.
    with tf.Graph().as_default() as g:
        options = tf.data.Options()
        options.experimental_deterministic = False
        it = D.range(4).map(lambda x: x * 3, 1).with_options(options) \
            .make_initializable_iterator()
        assert it.initializer.inputs[0].op.type == "OptimizeDataset"
        nxt = it.get_next()
        cases["sloppy"] = {"graph_def": g.as_graph_def().SerializeToString().hex(),
                           "init": it.initializer.name, "fetches": [nxt.name]}
        ours["sloppy"] = [[0], [3], [6], [9]]
    # A table filled by InitializeTableFromDataset, read in TF.
    with tf.Graph().as_default() as g:
        table = X.index_table_from_dataset(D.from_tensor_slices(["a", "b", "c"]))
        ids = table.lookup(tf.constant(["c", "q", "b"]))
        init = tf.tables_initializer()
        cases["table"] = {"graph_def": g.as_graph_def().SerializeToString().hex(),
                          "init": init.name, "fetches": [ids.name],
                          "once": True}
        ours["table"] = [[[2, -1, 1]]]
    theirs = run_json(GRAPH_SCRIPT, spec=cases)
    assert {k: v for k, v in ours.items() if theirs[k] != v} == {}


# -- Python-side checks ---------------------------------------------------------------------

def test_from_list_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="should not be empty"):
            X.from_list([])
        with pytest.raises(ValueError, match="must be a list"):
            X.from_list((1, 2))
        with pytest.raises(ValueError):
            X.from_list([(1, 2), 3])


def test_from_list_ops_and_structure():
    with tf.Graph().as_default() as g:
        d = X.from_list([(1, [1.0]), (2, [2.0, 3.0])])
        op = d._variant_tensor.op
        assert op.type == "ListDataset"
        assert [t.op.type for t in op.inputs] == ["Const"] * 4
        assert d.output_types == (tf.int32, tf.float32)
        assert [s.as_list() for s in d.output_shapes] == [[], [None]]
        assert g.get_operation_by_name("ListDataset") is op


def test_get_structure_and_variant():
    with tf.Graph().as_default():
        d = D.range(3).map(lambda x: {"v": x, "w": tf.fill([2], x)})
        spec = X.get_structure(d)
        assert sorted(spec) == ["v", "w"] and spec["w"].shape.as_list() == [2]
        assert X.get_structure(d.make_one_shot_iterator()) == spec
        with pytest.raises(TypeError, match="must be a `tf.data.Dataset`"):
            X.get_structure(3)
        assert X.to_variant(d) is d._variant_tensor
        back = X.from_variant(X.to_variant(d), spec)
        assert back.output_types == d.output_types


def test_pad_to_cardinality_needs_dicts():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="be a dictionary"):
        D.range(3).apply(X.pad_to_cardinality(5))


def test_table_from_dataset_checks():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="instead of two"):
            X.table_from_dataset(D.range(3))
        with pytest.raises(ValueError, match="non-scalar key Tensors of rank 1"):
            X.table_from_dataset(D.from_tensors(([1], 2)))
        pairs = D.from_tensor_slices((["a"], ["b"]))
        with pytest.raises(ValueError, match="`default_value` must be specified"):
            X.table_from_dataset(pairs)
        with pytest.raises(ValueError, match="`num_oov_buckets` must be"):
            X.index_table_from_dataset(D.range(3), num_oov_buckets=-1)
        with pytest.raises(ValueError, match="`vocab_size` must be greater than 0"):
            X.index_table_from_dataset(D.range(3), vocab_size=0)
        init = X.DatasetInitializer(D.from_tensor_slices(([1, 2], [3.0, 4.0])))
        assert (init.key_dtype, init.value_dtype) == (tf.int32, tf.float32)
        table = tf.lookup.StaticHashTable(init, -1.0)
        assert table.initializer.type == "InitializeTableFromDataset"
        assert table.initializer in tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)


def test_constants_and_debug_mode():
    assert X.SHARD_HINT == -1
    assert [a.name for a in X.AutotuneAlgorithm] == [
        "DEFAULT", "HILL_CLIMB", "GRADIENT_DESCENT", "MAX_PARALLELISM", "STAGE_BASED"]
    assert X.AutotuneAlgorithm.STAGE_BASED.value == 4
    options = tf.data.Options()
    options.autotune.autotune_algorithm = X.AutotuneAlgorithm.HILL_CLIMB
    assert options.autotune.autotune_algorithm is X.AutotuneAlgorithm.HILL_CLIMB
    # Graph mode, as TF with eager execution disabled: debug mode is refused.
    with pytest.raises(ValueError, match="only supported in eager mode"):
        X.enable_debug_mode()
