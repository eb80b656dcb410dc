"""Lookup tables against TensorFlow 2.21 (through TRAINFLOW_TF_PYTHON; skipped when unset):
the same TF1 program gives the same ids (vocabulary, OOV FarmHash buckets for string and
integer keys, the legacy and strong hashers); a SavedModel with a vocabulary-file table
written here loads in TensorFlow (its asset copied and fed) and TensorFlow's loads here;
a MutableHashTable checkpoint crosses both ways."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.saved_model import builder as builder_lib
from trainflow._src.saved_model import loader, signature_def_utils

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

# The program both sides build (`tf` is trainflow.compat.v1 or tensorflow.compat.v1);
# `vocab` is the path of a vocabulary file.
PROGRAM = r"""
def build(tf, vocab):
    from tensorflow.python.ops import lookup_ops as L  # replaced on the trainflow side
    words = tf.constant([["salad", "tarkus", "brain"], ["emerson", "lake", "palmer"]])
    ints = tf.constant([42, 7, -1000, 123456789, 0], tf.int64)
    out = {}
    out["vocab_file"] = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        vocab, tf.string, -2, tf.int64, -1), 7).lookup(words)
    out["buckets_only"] = tf.lookup.StaticVocabularyTable(None, 1000).lookup(words)
    out["int_keys"] = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        [42, -1000], [0, 1], tf.int64, tf.int64), 11).lookup(ints)
    out["int32_keys"] = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        [42, -1000], [0, 1], tf.int64, tf.int64), 5, lookup_key_dtype=tf.int32).lookup(
        tf.cast(ints, tf.int32))
    out["from_tensor"] = L.index_table_from_tensor(
        ["brain", "salad"], num_oov_buckets=3).lookup(words)
    out["legacy"] = L.index_table_from_tensor(
        ["brain"], num_oov_buckets=13, hasher_spec=L.HasherSpec("legacy", None)).lookup(words)
    out["strong"] = L.index_table_from_tensor(
        ["brain"], num_oov_buckets=13, hasher_spec=L.StrongHashSpec((7, 11))).lookup(words)
    out["from_file"] = L.index_table_from_file(vocab, num_oov_buckets=2,
                                               vocab_size=2).lookup(words)
    out["to_string"] = L.index_to_string_table_from_file(vocab).lookup(
        tf.constant([2, 0, 9], tf.int64))
    out["hash_size"] = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        vocab, tf.string, -2, tf.int64, -1), 7).size()
    return out
"""

TF_RUNS = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
exec(spec["program"])
with tf.Graph().as_default(), tf.Session() as sess:
    out = build(tf, spec["vocab"])
    sess.run(tf.tables_initializer())
    vals = sess.run(out)
print(json.dumps({k: [x.decode() if isinstance(x, bytes) else x
                      for x in v.reshape(-1).tolist()] for k, v in vals.items()}))
"""


def _ours(vocab):
    from trainflow._src.lookup import vocabulary  # the module TF's `L` stands for here

    class L:
        index_table_from_tensor = staticmethod(vocabulary.index_table_from_tensor)
        index_table_from_file = staticmethod(vocabulary.index_table_from_file)
        index_to_string_table_from_file = staticmethod(
            vocabulary.index_to_string_table_from_file)
        HasherSpec = vocabulary.HasherSpec
        StrongHashSpec = vocabulary.StrongHashSpec

    scope = {}
    exec(PROGRAM.replace("    from tensorflow.python.ops import lookup_ops as L  # replaced "
                         "on the trainflow side\n", ""), scope)  # noqa: S102
    scope["build"].__globals__["L"] = L
    with tf.Graph().as_default(), tf.Session() as sess:
        out = scope["build"](tf, vocab)
        sess.run(tf.tables_initializer())
        return sess.run(out)


def test_same_ids_as_tensorflow(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("brain\nsalad\nsurgery\n")
    want = run_json(TF_RUNS, spec={"program": PROGRAM, "vocab": str(vocab)})
    got = _ours(str(vocab))
    assert set(got) == set(want)
    for key, value in got.items():
        flat = np.asarray(value).reshape(-1).tolist()
        flat = [x.decode() if isinstance(x, bytes) else x for x in flat]
        assert flat == want[key], key


def _our_saved_model(export_dir, vocab):
    with tf.Graph().as_default(), tf.Session() as sess:
        words = tf.placeholder(tf.string, [None], name="words")
        table = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
            vocab, tf.string, -2, tf.int64, -1), 5)
        ids = tf.identity(table.lookup(words), name="ids")
        b = builder_lib.SavedModelBuilder(export_dir)
        b.add_meta_graph_and_variables(
            sess, ["serve"], signature_def_map={
                "serving_default": signature_def_utils.predict_signature_def(
                    {"words": words}, {"ids": ids})},
            assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
            main_op=tf.tables_initializer())
        b.save()


TF_LOADS = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default(), tf.Session() as sess:
    mgd = tf.saved_model.loader.load(sess, ["serve"], spec["dir"])
    sig = mgd.signature_def["serving_default"]
    ids = sess.run(sig.outputs["ids"].name, {sig.inputs["words"].name: spec["words"]})
print(json.dumps(ids.tolist()))
"""

TF_WRITES = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default(), tf.Session() as sess:
    words = tf.placeholder(tf.string, [None], name="words")
    table = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
        spec["vocab"], tf.string, -2, tf.int64, -1), 5)
    ids = tf.identity(table.lookup(words), name="ids")
    tf.saved_model.simple_save(sess, spec["dir"], {"words": words}, {"ids": ids},
                               legacy_init_op=tf.tables_initializer())
    sess.run(tf.tables_initializer())
    print(json.dumps(sess.run(ids, {words: spec["words"]}).tolist()))
"""

WORDS = ["salad", "tarkus", "brain", "surgery", "emerson"]


def test_tensorflow_loads_our_vocabulary_saved_model(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("brain\nsalad\nsurgery\n")
    export_dir = str(tmp_path / "export")
    _our_saved_model(export_dir, str(vocab))
    vocab.unlink()  # the SavedModel's own copy of the asset is what TF reads
    got = run_json(TF_LOADS, spec={"dir": export_dir, "words": WORDS})
    assert [got[0], got[2], got[3]] == [1, 0, 2] and all(3 <= got[i] < 8 for i in (1, 4))
    with tf.Graph().as_default(), tf.Session() as sess:
        mgd = loader.load(sess, ["serve"], export_dir)
        sig = mgd.signature_def["serving_default"]
        ours = sess.run(sig.outputs["ids"].name, {sig.inputs["words"].name: WORDS})
    assert ours.tolist() == got


def test_we_load_tensorflows_vocabulary_saved_model(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("brain\nsalad\nsurgery\n")
    export_dir = str(tmp_path / "export")
    want = run_json(TF_WRITES, spec={"dir": export_dir, "vocab": str(vocab), "words": WORDS})
    vocab.unlink()
    with tf.Graph().as_default(), tf.Session() as sess:
        mgd = loader.load(sess, ["serve"], export_dir)
        sig = mgd.signature_def["serving_default"]
        got = sess.run(sig.outputs["ids"].name, {sig.inputs["words"].name: WORDS})
    assert got.tolist() == want


TF_CHECKPOINT = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default(), tf.Session() as sess:
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1, name="t1")
    saver = tf.train.Saver()
    if spec["write"]:
        sess.run(table.insert(tf.constant(["b", "c", "d"]), tf.constant([1, 2, 3], tf.int64)))
        saver.save(sess, spec["prefix"])
        print(json.dumps(None))
    else:
        saver.restore(sess, spec["prefix"])
        print(json.dumps(sess.run(table.lookup(tf.constant(["a", "b", "c", "d"]))).tolist()))
"""


@pytest.mark.parametrize("writer", ["tensorflow", "trainflow"])
def test_mutable_hash_table_checkpoints_cross(tmp_path, writer):
    prefix = str(tmp_path / "ckpt")
    if writer == "tensorflow":
        run_json(TF_CHECKPOINT, spec={"write": True, "prefix": prefix})
    else:
        with tf.Graph().as_default(), tf.Session() as sess:
            table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1,
                                                            name="t1")
            saver = tf.train.Saver()
            sess.run(table.insert(tf.constant(["b", "c", "d"]),
                                  tf.constant([1, 2, 3], tf.int64)))
            saver.save(sess, prefix)
    want = [-1, 1, 2, 3]
    if writer == "trainflow":
        assert run_json(TF_CHECKPOINT, spec={"write": False, "prefix": prefix}) == want
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1, name="t1")
        tf.train.Saver().restore(sess, prefix)
        assert sess.run(table.lookup(tf.constant(["a", "b", "c", "d"]))).tolist() == want
