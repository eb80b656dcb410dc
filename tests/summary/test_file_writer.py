"""FileWriter writes what TF's FileWriter writes; replaying the fixture gives its events."""
import glob
import os
import socket
import time
import warnings

import pytest

from trainflow import summary as tf_summary
from trainflow._src.protos import (config_pb2, event_pb2, graph_pb2, meta_graph_pb2,
                              summary_pb2)
from trainflow._src.summary.summary_iterator import summary_iterator
from trainflow._src.summary.writer import FileWriter, SummaryWriter
from trainflow._src.summary.writer_cache import FileWriterCache

from fixture_paths import EVENTS


def _events(logdir):
    files = sorted(glob.glob(os.path.join(str(logdir), "events.out.tfevents.*")))
    return [e for path in files for e in summary_iterator(path)]


def _scalar(tag, value):
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])


def test_file_name_and_first_event(tmp_path):
    before = int(time.time())
    writer = FileWriter(str(tmp_path), filename_suffix=".v1")
    writer.close()
    (path,) = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    name = os.path.basename(path)
    stamp = name.split(".")[3]
    assert len(stamp) == 10 and before <= int(stamp) <= int(time.time())
    assert name == f"events.out.tfevents.{stamp}.{socket.gethostname()}.v1"
    (first,) = list(summary_iterator(path))
    assert first.file_version == "brain.Event:2"
    assert first.wall_time == int(stamp)


def test_logdir_is_created_and_reported(tmp_path):
    logdir = tmp_path / "a" / "b"
    with FileWriter(logdir) as writer:
        assert writer.get_logdir() == str(logdir)
    assert os.path.isdir(logdir)


def test_replaying_fixture_gives_tf_events(tmp_path):
    (fixture,) = glob.glob(os.path.join(EVENTS, "events.out.tfevents.*"))
    tf_events = list(summary_iterator(fixture))
    writer = FileWriter(str(tmp_path))
    for event in tf_events[1:]:
        kind = event.WhichOneof("what")
        step = event.step
        if kind == "summary":
            writer.add_summary(event.summary.SerializeToString(), global_step=step)
        elif kind == "session_log":
            writer.add_session_log(event.session_log, global_step=step if step else None)
        elif kind == "graph_def":
            writer.add_graph(graph_pb2.GraphDef.FromString(event.graph_def))
        elif kind == "tagged_run_metadata":
            run_metadata = config_pb2.RunMetadata.FromString(
                event.tagged_run_metadata.run_metadata)
            writer.add_run_metadata(run_metadata, event.tagged_run_metadata.tag, step)
    writer.close()
    ours = _events(tmp_path)
    assert len(ours) == len(tf_events)
    for mine, theirs in zip(ours[1:], tf_events[1:]):
        assert abs(mine.wall_time - time.time()) < 600   # stamped when added
        mine.wall_time = theirs.wall_time
        if theirs.HasField("graph_def"):
            assert graph_pb2.GraphDef.FromString(mine.graph_def) == \
                graph_pb2.GraphDef.FromString(theirs.graph_def)
        else:
            assert mine.SerializeToString() == theirs.SerializeToString()


def test_metadata_is_kept_only_for_the_first_value_of_a_tag(tmp_path):
    value = summary_pb2.Summary.Value(tag="notes", simple_value=1.0)
    value.metadata.plugin_data.plugin_name = "text"
    with FileWriter(str(tmp_path)) as writer:
        writer.add_summary(summary_pb2.Summary(value=[value]), 1)
        writer.add_summary(summary_pb2.Summary(value=[value]), 2)
        # As in TF: a tag seen first without metadata loses metadata added later.
        writer.add_summary(_scalar("plain", 1.0), 3)
        writer.add_summary(summary_pb2.Summary(value=[value]).SerializeToString(), 4)
        late = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="plain")])
        late.value[0].metadata.display_name = "late"
        writer.add_summary(late, 5)
    first, second, _, _, late_event = _events(tmp_path)[1:]
    assert first.summary.value[0].metadata.plugin_data.plugin_name == "text"
    assert not second.summary.value[0].HasField("metadata")
    assert (first.step, second.step) == (1, 2)
    assert not late_event.summary.value[0].HasField("metadata")


def test_graphs_meta_graphs_and_run_metadata(tmp_path):
    graph_def = graph_pb2.GraphDef()
    graph_def.node.add(name="x", op="Placeholder")

    class FakeGraph:  # duck-typed Graph
        def as_graph_def(self, add_shapes=False):
            assert add_shapes
            return graph_def

    with FileWriter(str(tmp_path), graph=FakeGraph()) as writer:
        writer.add_graph(graph_def, global_step=3)
        writer.add_meta_graph(meta_graph_pb2.MetaGraphDef(graph_def=graph_def), 4)
        writer.add_run_metadata(config_pb2.RunMetadata(), "step_1", 5)
        with pytest.raises(ValueError, match="already used"):
            writer.add_run_metadata(config_pb2.RunMetadata(), "step_1")
        with pytest.raises(ValueError, match="not both"):
            writer.add_graph(graph_def, graph_def=graph_def)
        with pytest.raises(TypeError, match="Graph"):
            writer.add_graph("not a graph")
        with pytest.raises(TypeError, match="MetaGraphDef"):
            writer.add_meta_graph(graph_def)
    kinds = [(e.WhichOneof("what"), e.step) for e in _events(tmp_path)]
    assert kinds == [("file_version", 0), ("graph_def", 0), ("meta_graph_def", 0),
                     ("graph_def", 3), ("meta_graph_def", 4), ("tagged_run_metadata", 5)]
    meta = meta_graph_pb2.MetaGraphDef.FromString(_events(tmp_path)[2].meta_graph_def)
    assert meta.graph_def == graph_def


def test_constructor_writes_the_meta_graph_of_the_graph(tmp_path):
    import trainflow.compat.v1 as tf
    with tf.Graph().as_default() as g:
        tf.placeholder(tf.float32, name="x")
        tf.Variable(1.0, name="v")
    FileWriter(str(tmp_path), graph=g).close()
    meta = meta_graph_pb2.MetaGraphDef.FromString(_events(tmp_path)[2].meta_graph_def)
    assert {n.name for n in meta.graph_def.node} >= {"x", "v"}
    assert {op.name for op in meta.meta_info_def.stripped_op_list.op} >= {
        "Placeholder", "VariableV2"}
    assert meta.meta_info_def.tensorflow_version
    assert "variables" in meta.collection_def


def test_add_event_keeps_the_event_as_given(tmp_path):
    event = event_pb2.Event(wall_time=12.5, step=9)
    event.session_log.status = event_pb2.SessionLog.START
    with FileWriter(str(tmp_path)) as writer:
        writer.add_event(event)
    assert _events(tmp_path)[1] == event


def test_closed_writer_warns_and_reopen_starts_a_new_file(tmp_path, monkeypatch):
    import trainflow._src.summary.event_file_writer as efw

    class Clock:  # the file name carries whole seconds: move the clock on instead of sleeping
        now = time.time()
        monotonic = staticmethod(time.monotonic)

        def time(self):
            return self.now

    clock = Clock()
    monkeypatch.setattr(efw, "time", clock)
    writer = FileWriter(str(tmp_path))
    writer.add_summary(_scalar("a", 1.0), 1)
    writer.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_summary(_scalar("a", 2.0), 2)   # dropped, as in TF
    assert "closed FileWriter" in str(caught[0].message)
    clock.now += 1.0
    writer.reopen()
    writer.add_summary(_scalar("a", 3.0), 3)
    writer.close()
    files = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    assert len(files) == 2
    values = [e.summary.value[0].simple_value for e in _events(tmp_path) if e.HasField("summary")]
    assert values == [1.0, 3.0]


def test_reopen_in_the_same_second_appends(tmp_path):
    writer = FileWriter(str(tmp_path))
    writer.add_summary(_scalar("a", 1.0), 1)
    writer.close()
    writer.reopen()
    writer.add_summary(_scalar("a", 2.0), 2)
    writer.close()
    values = [e.summary.value[0].simple_value for e in _events(tmp_path) if e.HasField("summary")]
    assert values == [1.0, 2.0]


def test_add_summary_rejects_other_types(tmp_path):
    with FileWriter(str(tmp_path)) as writer:
        with pytest.raises(TypeError, match="Summary"):
            writer.add_summary(3.0)


def test_file_writer_cache(tmp_path):
    a = FileWriterCache.get(str(tmp_path / "a"))
    assert FileWriterCache.get(str(tmp_path / "a")) is a
    assert FileWriterCache.get(str(tmp_path / "b")) is not a
    FileWriterCache.clear()
    assert FileWriterCache.get(str(tmp_path / "a")) is not a
    FileWriterCache.clear()


def test_namespace_names():
    assert tf_summary.FileWriter is FileWriter
    assert tf_summary.FileWriterCache is FileWriterCache
    assert SummaryWriter is FileWriter
    assert tf_summary.Summary is summary_pb2.Summary
    assert tf_summary.Event is event_pb2.Event
    assert tf_summary.SessionLog.START == 1
    assert tf_summary.TaggedRunMetadata(tag="t").tag == "t"
    assert tf_summary.SummaryDescription(type_hint="x").type_hint == "x"


def test_session_writer_names_its_file_as_tensorflow(tmp_path):
    with FileWriter(str(tmp_path / "a"), session=object()) as writer:
        name = os.path.basename(writer.event_writer.path)
    with FileWriter(str(tmp_path / "b"), session=object(), filename_suffix=".x") as writer:
        other = os.path.basename(writer.event_writer.path)
    head, pid, n, v2 = name.rsplit(".", 3)
    assert (pid, v2) == (str(os.getpid()), "v2") and head.endswith(socket.gethostname())
    assert other.endswith(f".{os.getpid()}.{int(n) + 1}.x")
