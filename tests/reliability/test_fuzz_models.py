"""Property-based fuzzing of the model readers and tf.data's text and fixed-length readers
with mutated files (issue 25): a SavedModel's `saved_model.pb` and `saved_model.pbtxt`
(tf.saved_model.loader.load and a run of its signature; `trainflow saved-model show
--all`), a frozen GraphDef (import_graph_def and a run), TextLineDataset (plain, GZIP)
and FixedLengthRecordDataset.

Allowed outcomes (fuzz_worker, under a memory cap and a timeout): what the reader reads;
a tf.errors class; a SavedModel file that does not parse is TF's IOError naming the file,
a tag set gone TF's RuntimeError; a GraphDef TF cannot import or feed TF's ValueError /
TypeError / KeyError (as test_fuzz_readers's meta graphs); a frozen GraphDef that does not
parse protobuf's DecodeError (TF's GraphDef.ParseFromString), as a SavedModel's collection
of VariableDef bytes that do not parse. Never a hang, a death, or
another class. CI runs a few dozen examples per input (derandomized);
TRAINFLOW_FUZZ_LONG=1 and TRAINFLOW_FUZZ_EXAMPLES=N run longer, random campaigns."""
import gzip
import os
import shutil
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzz_model_readers as fmr
import fuzz_mutations as fm
from trainflow._src.protos import graph_pb2, saved_model_pb2

TALLY = fm.Tally()
RUNTIME_MESSAGES = ("could not be found in SavedModel", "Expected exactly one SavedModel init op")


@pytest.fixture(scope="module")
def worker():
    w = fm.Worker()
    yield w
    w.close()
    print("\nfuzz counts (models, tf.data readers):\n" + TALLY.report())


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A SavedModel (binary and text) and a frozen GraphDef of y = a * x + b."""
    import trainflow.compat.v1 as tf
    root = tmp_path_factory.mktemp("models")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        a = tf.Variable(0.5, name="a")
        b = tf.Variable([2.0], name="b")
        y = tf.add(a * x, b, name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sigs = {"serving_default": tf.saved_model.signature_def_utils.predict_signature_def(
                {"x": x}, {"y": y})}
            for name, as_text in (("pb", False), ("pbtxt", True)):
                builder = tf.saved_model.builder.SavedModelBuilder(str(root / name))
                builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map=sigs)
                builder.save(as_text=as_text)
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, sess.graph.as_graph_def(), ["y"])
    with open(root / "pb" / "saved_model.pb", "rb") as f:
        saved = saved_model_pb2.SavedModel.FromString(f.read())
    return {"dir": root, "saved": saved, "frozen": frozen}


def _graph_mutation(graph_def, layer, node, value, mutations):
    """A GraphDef's bytes, mutated: `raw` bytes, one NodeDef's bytes (the messages around
    it framed correctly), or one attr set to an edge value."""
    g = graph_pb2.GraphDef()
    g.CopyFrom(graph_def)
    nodes = g.node
    if layer == "raw":
        return fm.mutate(g.SerializeToString(), mutations)
    if layer == "attr-value":
        fm.set_attr(nodes[node % len(nodes)], node, value)
        return g.SerializeToString()
    raw = [n.SerializeToString() for n in nodes]
    raw[node % len(raw)] = fm.mutate(raw[node % len(raw)], mutations)
    del nodes[:]
    return b"".join(fm.field(1, r) for r in raw) + g.SerializeToString()


def _saved_model_bytes(saved, layer, node, value, mutations):
    if layer == "raw":
        return fm.mutate(saved.SerializeToString(), mutations)
    s = saved_model_pb2.SavedModel()
    s.CopyFrom(saved)
    meta = s.meta_graphs[0]
    graph = _graph_mutation(meta.graph_def, layer, node, value, mutations)
    meta.ClearField("graph_def")
    meta_bytes = meta.SerializeToString() + fm.field(2, graph)
    del s.meta_graphs[:]
    return s.SerializeToString() + fm.field(2, meta_bytes)


def _copy_model(models, kind, tmp_path_factory, name, data):
    d = os.path.join(str(tmp_path_factory.getbasetemp()), f"fuzz_{kind}")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(str(models["dir"] / kind), d)
    _write(os.path.join(d, name), data)
    return d, os.path.join(d, name)


def _check_model(fmt, got, path):
    # parse_error: a collection's VariableDef bytes that do not parse (TF's DecodeError).
    assert got["kind"] in ("value", "tf_error", "tf_like", "parse_error"), \
        got.get("where", got)
    if got["kind"] == "tf_like":
        cls, message = got["class"], got["message"]
        if cls == "OSError":
            assert path in message, got  # TF's IOError("Cannot parse file PATH: ...")
        elif cls == "RuntimeError":
            assert any(m in message for m in RUNTIME_MESSAGES), got
        else:
            assert cls in ("ValueError", "TypeError", "KeyError"), got
    TALLY.add(fmt, "value" if got["kind"] == "value" else got["class"])


def _check_show(fmt, got, path):
    assert got["kind"] == "value", got
    rc, err = got["value"]["rc"], got["value"]["err"]
    assert rc == 0 or (rc == 1 and path in err), got
    TALLY.add(fmt, "shown" if rc == 0 else "exit 1 naming the file")


_GRAPH_LAYERS = st.sampled_from(["raw", "node-bytes", "attr-value"])


@fm.FUZZ_SETTINGS
@given(layer=_GRAPH_LAYERS, node=st.integers(0, 1000), value=st.sampled_from(fm.INTS),
       mutations=fm.MUTATIONS)
def test_saved_model_pb(worker, models, tmp_path_factory, layer, node, value, mutations):
    data = _saved_model_bytes(models["saved"], layer, node, value, mutations)
    d, path = _copy_model(models, "pb", tmp_path_factory, "saved_model.pb", data)
    _check_model("saved_model.pb load", worker.read("saved_model", d), path)
    _check_show("saved_model.pb show", worker.read("saved_model_show", d), path)


@fm.FUZZ_SETTINGS
@given(layer=st.sampled_from(["text-bytes", "attr-value"]), node=st.integers(0, 1000),
       value=st.sampled_from(fm.INTS), mutations=fm.MUTATIONS)
def test_saved_model_pbtxt(worker, models, tmp_path_factory, layer, node, value, mutations):
    from google.protobuf import text_format
    if layer == "text-bytes":
        text = text_format.MessageToString(models["saved"]).encode()
        data = fm.mutate(text, [m for m in mutations if m[0] != "length"])
    else:
        s = saved_model_pb2.SavedModel()
        s.CopyFrom(models["saved"])
        nodes = s.meta_graphs[0].graph_def.node
        fm.set_attr(nodes[node % len(nodes)], node, value)
        data = text_format.MessageToString(s).encode()
    d, path = _copy_model(models, "pbtxt", tmp_path_factory, "saved_model.pbtxt", data)
    _check_model("saved_model.pbtxt load", worker.read("saved_model", d), path)
    _check_show("saved_model.pbtxt show", worker.read("saved_model_show", d), path)


@fm.FUZZ_SETTINGS
@given(layer=_GRAPH_LAYERS, node=st.integers(0, 1000), value=st.sampled_from(fm.INTS),
       mutations=fm.MUTATIONS)
def test_frozen_graph(worker, models, tmp_path_factory, layer, node, value, mutations):
    data = _graph_mutation(models["frozen"], layer, node, value, mutations)
    path = _write(os.path.join(str(tmp_path_factory.getbasetemp()), "frozen.pb"), data)
    got = worker.read("frozen_graph", path)
    assert got["kind"] in ("value", "tf_error", "tf_like", "parse_error"), \
        got.get("where", got)
    if got["kind"] == "tf_like":
        assert got["class"] in ("ValueError", "TypeError", "KeyError"), got
    TALLY.add("frozen graph", "value" if got["kind"] == "value" else got["class"])


# ----------------------------------------------------------------------------- tf.data
LINES = b"first line\nsecond\r\n\n\xff\xfe not utf-8\n" + b"x" * 300 + b"\nlast without newline"


def _lines(data):
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return [fm.digest(p[:-1] if p.endswith(b"\r") else p) for p in parts]


def _check_partial(fmt, got, path, expected, prefix_only):
    if got["kind"] == "value":
        assert got["value"] == expected[:len(got["value"])] if prefix_only else \
            got["value"] == expected, (got, expected)
        TALLY.add(fmt, "data")
        return
    assert got["kind"] == "tf_error" and got["class"] == "DataLossError", got
    assert os.path.basename(path) in got["message"], got
    assert got["partial"] == expected[:len(got["partial"])], (got, expected)
    TALLY.add(fmt, "DataLossError")


@pytest.mark.parametrize("compressed", [False, True])
def test_text_lines(worker, tmp_path_factory, compressed):
    fmt = "dataset_text-gzip" if compressed else "dataset_text"

    @fm.FUZZ_SETTINGS
    @given(mutations=fm.MUTATIONS)
    def run(mutations):
        mutations = [m for m in mutations if m[0] != "length"] or [("flip", 0, 0)]
        if compressed:
            data = fm.mutate(gzip.compress(LINES), mutations)
            unpacker = zlib.decompressobj(wbits=31)
            try:
                plain = unpacker.decompress(data)
                complete = unpacker.eof and not unpacker.unused_data
            except zlib.error:
                plain, complete = b"", False
        else:
            data = fm.mutate(LINES, mutations)
            plain, complete = data, True
        path = _write(os.path.join(str(tmp_path_factory.getbasetemp()), "lines.txt"), data)
        got = worker.read(fmt, path)
        _check_partial(fmt, got, path, _lines(plain), prefix_only=not complete)
        if complete and compressed:
            assert got["kind"] == "value", got
    run()


@fm.FUZZ_SETTINGS
@given(mutations=fm.MUTATIONS)
def test_fixed_length_records(worker, tmp_path_factory, mutations):
    good = bytes(np.random.default_rng(1).integers(0, 256, fmr.FIXED_HEADER + 7
                                                   * fmr.FIXED_RECORD + fmr.FIXED_FOOTER,
                                                   dtype=np.uint8))
    data = fm.mutate(good, [m for m in mutations if m[0] != "length"] or [("flip", 0, 0)])
    path = _write(os.path.join(str(tmp_path_factory.getbasetemp()), "fixed.bin"), data)
    got = worker.read("dataset_fixed", path)
    body = len(data) - fmr.FIXED_HEADER - fmr.FIXED_FOOTER
    if body % fmr.FIXED_RECORD:
        assert got["kind"] == "tf_error" and got["class"] == "InvalidArgumentError", got
        assert path in got["message"] and "not an exact multiple" in got["message"], got
        TALLY.add("dataset_fixed", "InvalidArgumentError")
        return
    start, end = fmr.FIXED_HEADER, fmr.FIXED_HEADER + max(body, 0)
    expected = [fm.digest(data[i:i + fmr.FIXED_RECORD])
                for i in range(start, end, fmr.FIXED_RECORD)]
    assert got == {"kind": "value", "value": expected}, got
    TALLY.add("dataset_fixed", "data")
