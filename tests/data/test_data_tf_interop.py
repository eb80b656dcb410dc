"""tf.data pipelines cross between trainflow and TensorFlow in meta graphs: what trainflow
exports imports into TensorFlow (tf.compat.v1.train.import_meta_graph) and yields the
same elements, what TensorFlow exports runs here, and the GraphDef nodes of the iterator
ops carry TensorFlow's op types, names and attrs."""
import json

import pytest

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

# Each pipeline is Python both libraries run (as `tf`, `D = tf.data.Dataset`); it puts
# its iterators' get_next in the collection "next" (one-shot) or "next_init" with the
# initializer in "init".
PIPELINES = {
    "one_shot_map_capture_batch_repeat_prefetch": """
c = tf.constant(10, tf.int64)
ds = D.range(7).map(lambda x: (x, x + c)).batch(3).repeat(2).prefetch(2)
""",
    "filter_flat_map": """
ds = D.range(8).filter(lambda x: tf.equal(x % 2, 0)).flat_map(
    lambda x: D.from_tensors(x).repeat(x // 2 + 1))
""",
    "slices_dict_zip_concatenate": """
a = D.from_tensor_slices({"f": [[1.0, 2.0], [3.0, 4.0]], "s": ["x", "yz"]})
ds = D.zip((a, D.range(5))).concatenate(D.zip((a, D.range(9, 11)))).skip(1).take(3)
""",
    "map_on_strings_and_floats": """
ds = D.from_tensor_slices((["1.5", "2", "-3"], [1.0, 2.0, 3.0])).map(
    lambda s, f: tf.strings.to_number(s) * f)
""",
}

BUILD = r"""
import json, sys
spec = json.loads(sys.stdin.read())
if spec["lib"] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import trainflow.compat.v1 as tf
D = tf.data.Dataset
with tf.Graph().as_default():
    exec(spec["pipeline"])
    for t in tf.nest.flatten(tf.data.make_one_shot_iterator(ds).get_next()):
        tf.add_to_collection("next", t)
    it = tf.data.make_initializable_iterator(ds)
    tf.add_to_collection("init", it.initializer)
    for t in tf.nest.flatten(it.get_next()):
        tf.add_to_collection("next_init", t)
    tf.train.export_meta_graph(spec["path"])
print(json.dumps("ok"))
"""

RUN = r"""
import json, sys
spec = json.loads(sys.stdin.read())
if spec["lib"] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import trainflow.compat.v1 as tf


def value(v):
    return v.decode() if isinstance(v, bytes) else v.tolist() if hasattr(v, "tolist") else v


def drain(sess, fetches):
    out = []
    while True:
        try:
            out.append([value(v) for v in sess.run(fetches)])
        except tf.errors.OutOfRangeError:
            return out


with tf.Graph().as_default():
    tf.train.import_meta_graph(spec["path"])
    with tf.Session() as sess:
        one_shot = drain(sess, tf.get_collection("next"))
        sess.run(tf.get_collection("init"))
        first = drain(sess, tf.get_collection("next_init"))
        sess.run(tf.get_collection("init"))
        again = drain(sess, tf.get_collection("next_init"))
print(json.dumps([one_shot, first, again]))
"""


def _ours(code, spec):
    """Runs `code` under this python (trainflow) in a subprocess."""
    import sys
    return run_json(code, python=sys.executable, spec=spec)


def _run(lib, spec, code):
    spec = dict(spec, lib=lib)
    return run_json(code, spec=spec) if lib == "tf" else _ours(code, spec)


@pytest.mark.parametrize("exporter,importer", [("tflow", "tf"), ("tf", "tflow")],
                         ids=["trainflow_to_tf", "tf_to_trainflow"])
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_meta_graph_pipeline_yields_the_same_elements(tmp_path, name, exporter, importer):
    path = str(tmp_path / "pipeline.meta")
    _run(exporter, {"pipeline": PIPELINES[name], "path": path}, BUILD)
    got = _run(importer, {"path": path}, RUN)
    # The reference: the exporting library running its own meta graph.
    want = _run(exporter, {"path": path}, RUN)
    assert got == want
    assert got[0] and got[0] == got[1] == got[2]


NODES = r"""
import json, sys
spec = json.loads(sys.stdin.read())
if spec["lib"] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import trainflow.compat.v1 as tf
from google.protobuf import text_format
D = tf.data.Dataset
with tf.Graph().as_default() as g:
    it = D.range(5).make_initializable_iterator(shared_name="shared")
    it.get_next()
    it.string_handle(name="named_handle")
    one = D.range(3).make_one_shot_iterator()
    one.get_next(name="one_next")
    re = tf.data.Iterator.from_structure((tf.int64, tf.float32), ([], [None]))
    re.make_initializer(D.from_tensors((tf.constant(1, tf.int64), [2.0])))
    h = tf.placeholder(tf.string, [], name="h")
    tf.data.Iterator.from_string_handle(h, tf.int64, []).get_next()
    opt = tf.data.experimental.get_next_as_optional(it)
    opt.has_value()
    opt.get_value()
    gd = g.as_graph_def()
types = ("IteratorV2", "OneShotIterator", "MakeIterator", "IteratorGetNext",
         "IteratorToStringHandle", "IteratorFromStringHandleV2", "IteratorGetNextAsOptional",
         "OptionalHasValue", "OptionalGetValue")
out = sorted([n.name, n.op, n.device, [i for i in n.input],
              {k: text_format.MessageToString(v, as_one_line=True)
               for k, v in sorted(n.attr.items()) if k != "dataset_factory"}]
             for n in gd.node if n.op in types)
print(json.dumps(out))
"""


def test_iterator_nodes_match_tensorflows():
    ours, theirs = _run("tflow", {}, NODES), _run("tf", {}, NODES)
    assert json.dumps(ours, indent=1) == json.dumps(theirs, indent=1)


OPTIONAL_BUILD = r"""
import json, sys
spec = json.loads(sys.stdin.read())
if spec["lib"] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import trainflow.compat.v1 as tf
with tf.Graph().as_default():
    it = tf.data.make_initializable_iterator(
        tf.data.Dataset.range(3).map(lambda x: (x, tf.cast(x, tf.float32) / 2)))
    opt = tf.data.experimental.get_next_as_optional(it)
    tf.add_to_collection("init", it.initializer)
    tf.add_to_collection("has", opt.has_value())
    for t in opt.get_value():
        tf.add_to_collection("value", t)
    tf.train.export_meta_graph(spec["path"])
print(json.dumps("ok"))
"""

OPTIONAL_RUN = r"""
import json, sys
spec = json.loads(sys.stdin.read())
if spec["lib"] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import trainflow.compat.v1 as tf
with tf.Graph().as_default():
    tf.train.import_meta_graph(spec["path"])
    has, value = tf.get_collection("has")[0], tf.get_collection("value")
    out = []
    with tf.Session() as sess:
        sess.run(tf.get_collection("init"))
        for _ in range(3):
            h, v = sess.run([has, value])
            out.append([bool(h), [x.item() for x in v]])
        out.append(bool(sess.run(has)))
print(json.dumps(out))
"""


@pytest.mark.parametrize("exporter,importer", [("tflow", "tf"), ("tf", "tflow")],
                         ids=["trainflow_to_tf", "tf_to_trainflow"])
def test_meta_graph_get_next_as_optional(tmp_path, exporter, importer):
    path = str(tmp_path / "optional.meta")
    _run(exporter, {"path": path}, OPTIONAL_BUILD)
    got = _run(importer, {"path": path}, OPTIONAL_RUN)
    assert got == [[True, [0, 0.0]], [True, [1, 0.5]], [True, [2, 1.0]], False]
