"""The expressions of tests/helpers/ragged_cases.py run by TensorFlow (in a subprocess)
and by trainflow: static shapes, dtypes, values, error classes, and the added op types
where trainflow builds the same ops."""
import pytest

import expr_values
import ragged_cases
from tf_interop import needs_tf

_CACHE = []


def _results():
    if not _CACHE:
        args = (ragged_cases.PRELUDE, ragged_cases.EXPRESSIONS)
        _CACHE.append((expr_values.trainflow_results(*args), expr_values.tf_results(*args)))
    return _CACHE[0]


@needs_tf
@pytest.mark.parametrize("i", range(len(ragged_cases.EXPRESSIONS)),
                         ids=ragged_cases.EXPRESSIONS)
def test_matches_tf(i):
    expr = ragged_cases.EXPRESSIONS[i]
    ours, theirs = (r[i] for r in _results())
    if expr in ragged_cases.STATIC_DIFFER:
        ours = dict(ours, static=theirs["static"])
    expr_values.assert_same(ours, theirs, compare_ops=expr not in ragged_cases.OPS_DIFFER)


_GRAPH = """
def build(tf):
    rt = tf.ragged.constant([[1., 2.], [3.]])
    tf.identity(rt.to_tensor(default_value=-1.), name="dense")
    tf.identity(rt.to_sparse().indices, name="sparse_indices")
    tf.identity(tf.strings.unicode_decode(["h\\u00e9llo", "ab"], "UTF-8").flat_values,
                name="code_points")
    tf.identity(tf.strings.unicode_encode(tf.ragged.constant([[104, 233]]), "UTF-8"),
                name="encoded")
    tf.identity(tf.strings.ngrams(tf.ragged.constant([["a", "b", "c"]]), (1, 2),
                                  pad_values="#").flat_values, name="ngrams")
    tf.identity(tf.ragged.cross([tf.ragged.constant([["a"], ["b", "c"]]),
                                 tf.constant([["x"], ["y"]])]).flat_values, name="cross")
    tf.identity(tf.ragged.range([1, 2], [4, 5]).flat_values, name="range")
    tf.identity(tf.ragged.stack([rt, rt], axis=1).flat_values, name="gathered")
    tf.identity(tf.ragged_fill_empty_rows([0, 2], [1., 2.], 3, 9.).output_values, name="fill")
    tf.identity(tf.strings.unicode_script([97, 1046]), name="script")
    tf.identity(tf.strings.unsorted_segment_join(["a", "b"], [1, 1], 2, "-"), name="join")
"""
_FETCHES = ["dense:0", "sparse_indices:0", "code_points:0", "encoded:0", "ngrams:0",
            "cross:0", "range:0", "gathered:0", "fill:0", "script:0", "join:0"]
_TF_GRAPH = _GRAPH + """
import json
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
g = tf.Graph()
with g.as_default():
    build(tf)
print(json.dumps(g.as_graph_def().SerializeToString().hex()))
"""


_FLAT = """
def flat(values):
    import numpy as np
    return [[x.decode("latin-1") if isinstance(x, bytes) else x
             for x in np.asarray(v, dtype=object).reshape(-1).tolist()] for v in values]
"""
_TF_RUN = _FLAT + """
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
gd = tf.GraphDef()
gd.ParseFromString(bytes.fromhex(spec["graph_def"]))
with tf.Graph().as_default():
    tf.import_graph_def(gd, name="")
    with tf.Session() as sess:
        print(json.dumps(flat(sess.run(spec["fetches"]))))
"""


@needs_tf
def test_graph_defs_move_both_ways():
    """TensorFlow's GraphDef of the ragged and Unicode ops runs in trainflow, and
    trainflow's runs in TensorFlow, with the same values."""
    import trainflow.compat.v1 as tf
    from tf_interop import run_json

    env = {}
    exec(_GRAPH + _FLAT, env)  # noqa: S102 - the graph both sides build
    theirs = tf.GraphDef()
    theirs.ParseFromString(bytes.fromhex(run_json(_TF_GRAPH)))
    with tf.Graph().as_default():
        tf.import_graph_def(theirs, name="")
        with tf.Session() as sess:
            ours_of_theirs = env["flat"](sess.run(_FETCHES))
    g = tf.Graph()
    with g.as_default():
        env["build"](tf)
    tf_of_ours = run_json(_TF_RUN, spec={"graph_def": g.as_graph_def().SerializeToString().hex(),
                                         "fetches": _FETCHES})
    assert ours_of_theirs == tf_of_ours
    assert ours_of_theirs[3] == ["h\xc3\xa9"] and ours_of_theirs[9] == [25, 8]
