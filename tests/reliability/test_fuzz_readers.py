"""Property-based fuzzing of every reader with mutated files: TFRecord (plain, GZIP, ZLIB; by
tf_record_iterator and by tf.data's TFRecordDataset), event files, Example protos and meta
graphs. (Checkpoints: test_fuzz_checkpoints.py; SavedModels, frozen graphs and tf.data's
text and fixed-length readers: test_fuzz_models.py.)

Each mutated file is read by fuzz_worker under a memory cap and a timeout. Allowed outcomes:
the data an independent reference reading of the mutated bytes gives, or a tf.errors class
naming the file and the offset; for protos parsed as TF parses them (Example, MetaGraphDef),
protobuf's DecodeError, and for GraphDef import TF's ValueError/TypeError. CI runs a few
dozen examples per format (derandomized); TRAINFLOW_FUZZ_LONG=1 and
TRAINFLOW_FUZZ_EXAMPLES=N run longer, random campaigns."""
import os
import re
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzz_mutations as fm
from trainflow._src.protos import event_pb2
from trainflow._src.protos import example_pb2
from trainflow._src.protos import meta_graph_pb2

TALLY = fm.Tally()
_OFFSET = re.compile(r"\b(at|offset) \d+")


@pytest.fixture(scope="module")
def worker():
    w = fm.Worker()
    yield w
    w.close()
    print("\nfuzz counts (readers):\n" + TALLY.report())


def _write(tmp_path, name, data):
    path = os.path.join(str(tmp_path), name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _never_wrong(fmt, got):
    assert got["kind"] not in ("hang", "died", "timeout", "other_error"), got


def _check_stream(fmt, got, path, expected, state, prefix_only=False):
    """`expected` payload digests and "clean"/"corrupt" from the reference reading."""
    _never_wrong(fmt, got)
    if got["kind"] == "value":
        if prefix_only:
            assert got["value"] == expected[:len(got["value"])], got
        else:
            assert state == "clean" and got["value"] == expected, (got, expected, state)
        TALLY.add(fmt, "data")
        return
    assert got["kind"] == "tf_error" and got["class"] == "DataLossError", got
    assert os.path.basename(path) in got["message"] and _OFFSET.search(got["message"]), got
    partial = got.get("partial", [])
    if prefix_only:
        assert partial == expected[:len(partial)], (got, expected)
    else:
        assert state == "corrupt" and partial == expected, (got, expected, state)
    TALLY.add(fmt, "DataLossError")


# ----------------------------------------------------------------------------- TFRecord
_rng = np.random.default_rng(0)
PAYLOADS = [b"", b"x", bytes(_rng.integers(0, 256, 300, dtype=np.uint8)), b"record" * 20,
            bytes(range(256)), b"\0" * 40]

_LAYER = st.sampled_from(["raw", "checksums-fixed"])


def _mutated_stream(layer, mutations):
    buf = fm.mutate_records(fm.frame(PAYLOADS), mutations)
    return fm.fix_record_checksums(buf) if layer == "checksums-fixed" else buf


@pytest.mark.parametrize("reader", ["", "dataset_"])  # tf_record_iterator, TFRecordDataset
def test_tfrecord(worker, tmp_path_factory, reader):
    fmt = f"{reader}tfrecord"

    @fm.FUZZ_SETTINGS
    @given(layer=_LAYER, mutations=fm.MUTATIONS)
    def run(layer, mutations):
        buf = _mutated_stream(layer, mutations)
        path = _write(tmp_path_factory.getbasetemp(), "data.tfrecord", buf)
        records, state = fm.reference_records(buf)
        _check_stream(fmt, worker.read(fmt, path), path, [fm.digest(r) for r in records],
                      state)
    run()


@pytest.mark.parametrize("reader", ["", "dataset_"])
@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_tfrecord_compressed(worker, tmp_path_factory, kind, reader):
    fmt = f"{reader}tfrecord-{kind.lower()}"

    @fm.FUZZ_SETTINGS
    @given(layer=st.sampled_from(["raw", "checksums-fixed", "compressed-bytes"]),
           mutations=fm.MUTATIONS)
    def run(layer, mutations):
        wbits = 31 if kind == "GZIP" else 15
        if layer == "compressed-bytes":
            packer = zlib.compressobj(wbits=wbits)
            good = packer.compress(fm.frame(PAYLOADS)) + packer.flush()
            buf = fm.mutate(good, [m for m in mutations if m[0] != "length"])
            unpacker = zlib.decompressobj(wbits=wbits)
            try:
                plain = unpacker.decompress(buf)
                complete = unpacker.eof and not unpacker.unused_data
            except zlib.error:
                plain, complete = b"", False
            records, state = fm.reference_records(plain)
            prefix_only = not complete
        else:
            plain = _mutated_stream(layer, mutations)
            packer = zlib.compressobj(wbits=wbits)
            buf = packer.compress(plain) + packer.flush()
            records, state = fm.reference_records(plain)
            prefix_only = False
        path = _write(tmp_path_factory.getbasetemp(), f"data.{kind}.tfrecord", buf)
        _check_stream(fmt, worker.read(fmt, path), path, [fm.digest(r) for r in records],
                      state, prefix_only=prefix_only)
    run()


# ----------------------------------------------------------------------------- events
def _events():
    out = [event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")]
    for step in range(3):
        ev = event_pb2.Event(wall_time=2.0 + step, step=step)
        v = ev.summary.value.add(tag="loss", simple_value=0.5 * step)
        v.metadata.plugin_data.plugin_name = "scalars"
        h = ev.summary.value.add(tag="hist").histo
        h.min, h.max, h.num = -1.0, 1.0, 3
        h.bucket_limit.extend([0.0, 1.0])
        h.bucket.extend([1.0, 2.0])
        out.append(ev)
    out.append(event_pb2.Event(wall_time=9.0, graph_def=b"\x0a\x03abc"))
    return [e.SerializeToString() for e in out]


EVENTS = _events()


def _expected_events(payloads, state):
    out = []
    for p in payloads:
        try:
            out.append(fm.digest(event_pb2.Event.FromString(p).SerializeToString()))
        except Exception:  # noqa: BLE001 - protobuf DecodeError: the reader stops there
            return out, "corrupt"
    return out, state


@fm.FUZZ_SETTINGS
@given(layer=st.sampled_from(["event-proto", "raw", "checksums-fixed"]),
       which=st.integers(0, len(EVENTS) - 1), mutations=fm.MUTATIONS)
def test_event_files(worker, tmp_path_factory, layer, which, mutations):
    if layer == "event-proto":
        payloads = list(EVENTS)
        payloads[which] = fm.mutate(payloads[which], mutations)
        buf = fm.frame(payloads)
    else:
        buf = fm.mutate_records(fm.frame(EVENTS), mutations)
        if layer == "checksums-fixed":
            buf = fm.fix_record_checksums(buf)
    path = _write(tmp_path_factory.getbasetemp(), "events.out.tfevents.1.host", buf)
    expected, state = _expected_events(*fm.reference_records(buf))
    _check_stream("events", worker.read("events", path), path, expected, state)


# ----------------------------------------------------------------------------- Example
def _example():
    ex = example_pb2.Example()
    f = ex.features.feature
    f["label"].int64_list.value.extend([1, -5, 2 ** 40])
    f["pixels"].float_list.value.extend(np.linspace(0, 1, 20).tolist())
    f["name"].bytes_list.value.extend([b"abc", b"\xff\xfe", b""])
    f["empty"].float_list.SetInParent()
    return ex.SerializeToString()


EXAMPLE = _example()


@fm.FUZZ_SETTINGS
@given(mutations=fm.MUTATIONS)
def test_example_protos(worker, tmp_path_factory, mutations):
    buf = fm.mutate(EXAMPLE, mutations)
    path = _write(tmp_path_factory.getbasetemp(), "example.pb", buf)
    got = worker.read("example", path)
    _never_wrong("example", got)
    assert got["kind"] in ("value", "parse_error"), got
    TALLY.add("example", "data" if got["kind"] == "value" else "DecodeError (as TF)")


# ----------------------------------------------------------------------------- meta graphs
def _meta_graph():
    import trainflow.compat.v1 as tf
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(tf.ones([3, 2]), name="w")
        y = tf.nn.relu(tf.matmul(x, w) + tf.constant([1.0, 2.0]), name="y")
        tf.cast(tf.reduce_sum(y, axis=[0, 1]), tf.int32, name="total")
        tf.reshape(tf.fill([2, 2], 3.0), [4], name="flat")
    meta = meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.tags.append("serve")
    meta.graph_def.CopyFrom(g.as_graph_def())
    return meta


META = _meta_graph()


@fm.FUZZ_SETTINGS
@given(layer=st.sampled_from(["raw", "node-bytes", "attr-value"]),
       node=st.integers(0, 1000), value=st.sampled_from(fm.INTS), mutations=fm.MUTATIONS)
def test_meta_graphs(worker, tmp_path_factory, layer, node, value, mutations):
    meta = meta_graph_pb2.MetaGraphDef()
    meta.CopyFrom(META)
    nodes = meta.graph_def.node
    if layer == "raw":
        buf = fm.mutate(meta.SerializeToString(), mutations)
    elif layer == "attr-value":
        fm.set_attr(nodes[node % len(nodes)], node, value)
        buf = meta.SerializeToString()
    else:  # one NodeDef's bytes mutated; the messages around it framed correctly
        raw = [n.SerializeToString() for n in nodes]
        raw[node % len(raw)] = fm.mutate(raw[node % len(raw)], mutations)
        del nodes[:]
        graph = b"".join(fm.field(1, r) for r in raw) + meta.graph_def.SerializeToString()
        meta.ClearField("graph_def")
        buf = meta.SerializeToString() + fm.field(2, graph)
    path = _write(tmp_path_factory.getbasetemp(), "model.meta", buf)
    got = worker.read("meta_graph", path)
    _never_wrong("meta_graph", got)
    assert got["kind"] in ("value", "parse_error", "import_error", "tf_error"), got
    TALLY.add("meta_graph", got["kind"] if got["kind"] == "value" else got["class"])
    if os.environ.get("TRAINFLOW_FUZZ_VERBOSE") and got["kind"] == "import_error":
        print(got["class"], got["message"][:200])
