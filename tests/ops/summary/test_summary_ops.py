"""tf.summary.* and the pre-1.0 summary functions: node names, tags, collections, and
what the kernels write, checked against the event file TensorFlow wrote (fixtures)."""
import io
import json
import os
import zlib

import numpy as np
import pytest

import summary_naming
import trainflow.compat.v1 as tf
from fixture_paths import EVENTS
from tf_interop import needs_tf, run_json
from trainflow._src.framework import errors
from trainflow._src.ops.summary.summary_ops import (
    audio_summary, histogram_summary, image_summary, merge_all_summaries, merge_summary,
    scalar_summary)
from trainflow._src.protos import summary_pb2
from trainflow._src.summary.writer import SummaryWriter


_CLASSIC_ZLIB = "ng" not in zlib.ZLIB_RUNTIME_VERSION


@pytest.fixture(scope="module")
def fixture():
    with open(os.path.join(EVENTS, "events.json")) as f:
        data = json.load(f)
    written = {e["written_as"]: e for e in data["events"]}
    return data["inputs"], written


def _run(t, feed=None):
    with tf.Session() as sess:
        return summary_pb2.Summary.FromString(sess.run(t, feed))


def _fixture_graph(inputs):
    """The summaries of the fixture program (README of the events fixture)."""
    with tf.name_scope("train"):
        loss = tf.placeholder(tf.float32, [], name="loss_value")
        acc = tf.placeholder(tf.float32, [], name="accuracy_value")
        s = {"loss": tf.summary.scalar("loss", loss), "acc": tf.summary.scalar("accuracy", acc)}
    s["hist"] = tf.summary.histogram("weights", tf.constant(
        np.array(inputs["histogram values (weights)"], np.float32), name="hist_values"))
    s["rgb"] = tf.summary.image("rgb", tf.constant(
        np.array(inputs["rgb image uint8 [1,4,4,3]"], np.uint8), name="rgb_values"))
    s["gray"] = tf.summary.image("gray", tf.constant(
        np.array(inputs["gray image float32 [2,4,4,1]"], np.float32), name="gray_values"),
        max_outputs=2)
    s["sine"] = tf.summary.audio("sine", tf.constant(
        np.array(inputs["audio float32 [1,40,2] at 8000 Hz"], np.float32),
        name="audio_values"), 8000, max_outputs=1)
    s["notes"] = tf.summary.text("notes", tf.constant(inputs["text"], name="text_value"))
    s["merged"] = tf.summary.merge([s["acc"], s["hist"]], name="merged_acc_hist")
    s["all"] = tf.summary.merge_all()
    return s, {loss: 0.125, acc: np.float32(0.97)}


def test_graph_def_as_tensorflows(fixture):
    """Node for node (names, ops, inputs, attrs, shapes) the GraphDef TF wrote."""
    from fixture_paths import events_file
    from trainflow._src.protos import graph_pb2
    from trainflow._src.summary.summary_iterator import summary_iterator
    inputs, written = fixture
    theirs = next(graph_pb2.GraphDef.FromString(e.graph_def)
                  for e in summary_iterator(events_file()) if e.HasField("graph_def"))
    with tf.Graph().as_default() as g:
        _fixture_graph(inputs)
        ours = g.as_graph_def(add_shapes=True)
    assert [n.name for n in ours.node] == written["graph"]["graph_def"]["node_names"]
    for mine, tfs in zip(ours.node, theirs.node):
        assert mine == tfs


@pytest.mark.parametrize("key,written_as", [
    ("hist", "histogram weights"), ("sine", "audio sine"), ("notes", "text notes")])
def test_values_bit_for_bit(fixture, key, written_as):
    inputs, written = fixture
    with tf.Graph().as_default():
        s, feed = _fixture_graph(inputs)
        (value,) = _run(s[key], feed).value
    (expected,) = written[written_as]["values"]
    assert value.tag == expected["tag"]
    if key == "hist":
        h = expected["histo"]
        assert [value.histo.min, value.histo.max, value.histo.num, value.histo.sum,
                value.histo.sum_squares] == [h["min"], h["max"], h["num"], h["sum"],
                                             h["sum_squares"]]
        assert list(value.histo.bucket_limit) == h["bucket_limit"]
        assert list(value.histo.bucket) == h["bucket"]
    elif key == "sine":
        assert value.audio.encoded_audio_string.hex() == expected["audio"]["encoded_hex"]
        assert (value.audio.sample_rate, value.audio.num_channels,
                value.audio.length_frames, value.audio.content_type) == (8000, 2, 40,
                                                                         "audio/wav")
    else:
        assert value.tensor.SerializeToString().hex() == expected["tensor"]["tensor_proto_hex"]
        assert value.metadata.plugin_data.plugin_name == "text"


@pytest.mark.parametrize("key,written_as", [("rgb", "image rgb"),
                                            ("gray", "image gray (batch of 2)")])
def test_images_are_tensorflows(fixture, key, written_as):
    from PIL import Image
    inputs, written = fixture
    with tf.Graph().as_default():
        s, feed = _fixture_graph(inputs)
        values = _run(s[key], feed).value
    expected = written[written_as]["values"]
    assert [v.tag for v in values] == [e["tag"] for e in expected]
    for value, exp in zip(values, expected):
        pixels = np.asarray(Image.open(io.BytesIO(value.image.encoded_image_string)))
        want = np.array(exp["image"]["decoded_pixels_hwc"])
        np.testing.assert_array_equal(pixels.reshape(want.shape), want)
        if _CLASSIC_ZLIB:  # deflate's bytes are zlib's: another build may differ
            assert value.image.encoded_image_string.hex() == exp["image"]["encoded_hex"]
        assert (value.image.width, value.image.height, value.image.colorspace) == \
            (exp["image"]["width"], exp["image"]["height"], exp["image"]["colorspace"])


def test_merge_all_holds_every_value_in_order(fixture):
    inputs, written = fixture
    with tf.Graph().as_default():
        s, feed = _fixture_graph(inputs)
        merged = _run(s["all"], feed)
    expected = written["merge_all"]["values"]
    assert [v.tag for v in merged.value] == [e["tag"] for e in expected]
    assert merged.value[0].simple_value == 0.125


def test_legacy_names_keep_tags_as_given():
    with tf.Graph().as_default() as g:
        x = tf.constant(2.0)
        with tf.name_scope("scope"):
            s = scalar_summary(["a/b", "c"], tf.constant([1.0, 2.0]))
            h = histogram_summary("weights", tf.constant([1.0]))
            i = image_summary("pic", tf.zeros([2, 1, 1, 3]), max_images=1)
            a = audio_summary("snd", tf.zeros([1, 3]), 100)
        merged = merge_all_summaries()
        both = merge_summary([s, h], name="both")
        assert [s.op.name, h.op.name, i.op.name, a.op.name, merged.op.name, both.op.name] == [
            "scope/ScalarSummary", "scope/HistogramSummary", "scope/ImageSummary",
            "scope/AudioSummary", "MergeSummary/MergeSummary", "both/both"]
        assert g.get_collection(tf.GraphKeys.SUMMARIES) == [s, h, i, a]
        del x
        tags = [v.tag for v in _run(merged).value]
    assert tags == ["a/b", "c", "weights", "pic/image", "snd/audio/0"]
    assert SummaryWriter is tf.summary.FileWriter


@pytest.mark.parametrize("op_type", ["ScalarSummary", "HistogramSummary", "ImageSummary",
                                     "AudioSummaryV2", "TensorSummaryV2", "MergeSummary"])
def test_summary_ops_are_not_differentiable(op_type):
    from trainflow._src.framework import registry
    assert registry.is_registered(op_type)
    assert registry.get_gradient(op_type) == (True, None)


def test_text_needs_strings():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="to have dtype string"):
            tf.summary.text("t", tf.constant(1.0))


def test_merge_of_a_bad_string_is_invalid_argument():
    with tf.Graph().as_default():
        merged = tf.summary.merge([tf.constant(b"\xff\xff")])
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError,
                                                 match="Could not parse"):
            sess.run(merged)


@needs_tf
def test_tags_and_node_names_as_tensorflow():
    theirs = run_json(f"import runpy, sys; sys.argv = ['', 'tensorflow.compat.v1']; "
                      f"runpy.run_path({summary_naming.__file__!r}, run_name='__main__')")
    assert summary_naming.build("trainflow.compat.v1") == theirs


def test_tensorflows_graph_def_imports_and_runs(fixture):
    from fixture_paths import events_file
    from trainflow._src.protos import graph_pb2
    from trainflow._src.summary.summary_iterator import summary_iterator
    _, written = fixture
    graph_def = next(graph_pb2.GraphDef.FromString(e.graph_def)
                     for e in summary_iterator(events_file()) if e.HasField("graph_def"))
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        merged = g.get_tensor_by_name("Merge/MergeSummary:0")
        summary = _run(merged, {"train/loss_value:0": 0.125,
                                "train/accuracy_value:0": np.float32(0.97)})
    expected = written["merge_all"]["values"]
    assert [v.tag for v in summary.value] == [e["tag"] for e in expected]
    by_tag = {v.tag: v for v in summary.value}
    assert list(by_tag["weights"].histo.bucket) == expected[2]["histo"]["bucket"]
    assert by_tag["sine/audio"].audio.encoded_audio_string.hex() == \
        expected[-2]["audio"]["encoded_hex"]


def test_get_summary_description():
    from trainflow._src.framework.op_builder import apply_op
    with tf.Graph().as_default():
        t = apply_op("TensorSummary", tensor=tf.constant([1.0]),
                     description='{"typeHint": "scalar"}').outputs[0]
        assert tf.summary.get_summary_description(t.op.node_def).type_hint == "scalar"
        with pytest.raises(ValueError, match="Can't get_summary_description on Const"):
            tf.summary.get_summary_description(tf.constant(1.0).op.node_def)
