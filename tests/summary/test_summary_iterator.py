"""summary_iterator reads TF's event file as events.json lists it."""
import json
import os

import numpy as np
import pytest

from trainflow import train
from trainflow._src.framework import errors
from trainflow._src.protos import config_pb2, event_pb2
from trainflow._src.summary.summary_iterator import summary_iterator

from fixture_paths import EVENTS, events_file



def _expected():
    with open(os.path.join(EVENTS, "events.json")) as f:
        return json.load(f)["events"]


def test_events_match_events_json():
    events = list(summary_iterator(events_file()))
    expected = _expected()
    assert len(events) == len(expected)
    for event, want in zip(events, expected):
        assert event.WhichOneof("what") == want["what"]
        assert event.step == want["step"]
        assert event.wall_time == want["wall_time"]
        if want["what"] == "file_version":
            assert event.file_version == want["file_version"] == "brain.Event:2"
            assert event.wall_time == int(event.wall_time)
        elif want["what"] == "session_log":
            assert event.session_log.status == want["session_log"]["status_enum"]
            assert event.session_log.checkpoint_path == want["session_log"]["checkpoint_path"]
            assert event.session_log.msg == want["session_log"]["msg"]
        elif want["what"] == "tagged_run_metadata":
            tagged = event.tagged_run_metadata
            assert tagged.tag == want["tagged_run_metadata"]["tag"]
            assert tagged.run_metadata.hex() == want["tagged_run_metadata"]["run_metadata_hex"]
            assert config_pb2.RunMetadata.FromString(tagged.run_metadata).step_stats.dev_stats
        elif want["what"] == "graph_def":
            assert len(event.graph_def) == want["graph_def"]["bytes"]
        elif want["what"] == "summary":
            _check_values(event.summary.value, want["values"])


def _check_values(values, wanted):
    assert [v.tag for v in values] == [w["tag"] for w in wanted]
    for value, want in zip(values, wanted):
        kind = want["value_kind"]
        assert value.WhichOneof("value") == kind
        if kind == "simple_value":
            assert value.simple_value == np.float32(want["simple_value"])
        elif kind == "histo":
            histo = want["histo"]
            assert list(value.histo.bucket_limit) == histo["bucket_limit"]
            assert list(value.histo.bucket) == histo["bucket"]
            assert (value.histo.min, value.histo.max, value.histo.num) == (
                histo["min"], histo["max"], histo["num"])
        elif kind == "image":
            image = want["image"]
            assert (value.image.width, value.image.height, value.image.colorspace) == (
                image["width"], image["height"], image["colorspace"])
            assert value.image.encoded_image_string.hex() == image["encoded_hex"]
        elif kind == "audio":
            assert value.audio.sample_rate == want["audio"]["sample_rate"]
            assert value.audio.content_type == "audio/wav"
        if "metadata" in want:
            assert value.metadata.plugin_data.plugin_name == want["metadata"]["plugin_name"]
        else:
            # FileWriter keeps a tag's metadata only the first time it sees the tag.
            assert not value.HasField("metadata")


def test_record_offsets_match_framing():
    with open(events_file(), "rb") as f:
        data = f.read()
    for want in _expected():
        offset, length = want["record_offset"], want["record_length"]
        assert int.from_bytes(data[offset:offset + 8], "little") == length


def test_exported_names():
    assert train.summary_iterator is summary_iterator


def test_missing_and_corrupt_files(tmp_path):
    with pytest.raises(errors.NotFoundError):
        next(summary_iterator(str(tmp_path / "missing")))
    with open(events_file(), "rb") as f:
        data = bytearray(f.read())
    data[100] ^= 0xFF  # inside the session_log event's payload
    bad = tmp_path / "events.out.tfevents.bad"
    bad.write_bytes(bytes(data))
    got = []
    with pytest.raises(errors.DataLossError, match="corrupted record at 90"):
        for event in summary_iterator(str(bad)):
            got.append(event)
    assert len(got) == 1 and isinstance(got[0], event_pb2.Event)
