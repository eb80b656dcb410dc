"""Hooks that write event files and traces: StepCounterHook, SummarySaverHook,
ProfilerHook (Chrome trace), and CheckpointSaverHook with its listeners."""
import glob
import json
import os

import pytest

import trainflow.compat.v1 as tf


def _events(logdir):
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        out.extend(tf.train.summary_iterator(path))
    return out


def _model():
    step = tf.train.get_or_create_global_step()
    train = tf.assign_add(step, 1)
    return step, train


def test_summary_saver_hook_writes_every_n_steps(tmp_path):
    with tf.Graph().as_default():
        step, train = _model()
        tf.summary.scalar("three", tf.constant(3.0))
        hook = tf.train.SummarySaverHook(save_steps=2, output_dir=str(tmp_path),
                                         summary_op=tf.summary.merge_all())
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train)
        tf.summary.FileWriterCache.clear()
    events = _events(str(tmp_path))
    scalars = [(e.step, v.simple_value) for e in events for v in e.summary.value]
    assert scalars == [(1, 3.0), (3, 3.0), (5, 3.0)]
    starts = [e.step for e in events if e.HasField("session_log")]
    assert starts == [1]
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        tf.train.SummarySaverHook(save_steps=1)


def test_step_counter_hook_records_steps_per_second(tmp_path):
    with tf.Graph().as_default():
        step, train = _model()
        hook = tf.train.StepCounterHook(every_n_steps=2, output_dir=str(tmp_path))
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(6):
                sess.run(train)
        tf.summary.FileWriterCache.clear()
    values = [(e.step, v.tag) for e in _events(str(tmp_path)) for v in e.summary.value]
    assert values and all(tag == "global_step/sec" for _, tag in values)
    assert [s for s, _ in values] == [3, 5]
    with pytest.raises(ValueError, match="exactly one of every_n_steps and every_n_secs"):
        tf.train.StepCounterHook(every_n_steps=None)


@pytest.mark.xla_differs("a compiled step is one XlaCluster op in the timeline, "
                         "as TF shows one _XlaRun")
def test_profiler_hook_writes_chrome_traces(tmp_path):
    with tf.Graph().as_default():
        step, train = _model()
        hook = tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path))
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train)
        tf.summary.FileWriterCache.clear()
    traces = sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "timeline-*.json")))
    assert traces == ["timeline-2.json", "timeline-4.json"]
    with open(tmp_path / "timeline-2.json") as f:
        trace = json.load(f)
    ops = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert any(e["args"]["op"] == "AssignAdd" for e in ops)
    assert all(e["dur"] >= 0 and "ts" in e for e in ops)
    metadata = [e for e in _events(str(tmp_path)) if e.HasField("tagged_run_metadata")]
    assert [e.tagged_run_metadata.tag for e in metadata] == ["step_2", "step_4"]


class _Listener(tf.train.CheckpointSaverListener):
    def __init__(self, stop_after=None):
        self.calls = []
        self.stop_after = stop_after

    def begin(self):
        self.calls.append("begin")

    def before_save(self, session, global_step_value):
        self.calls.append(("before", global_step_value))

    def after_save(self, session, global_step_value):
        self.calls.append(("after", global_step_value))
        return self.stop_after is not None and global_step_value >= self.stop_after

    def end(self, session, global_step_value):
        self.calls.append(("end", global_step_value))


def test_checkpoint_saver_hook_saves_at_start_period_and_end(tmp_path):
    with tf.Graph().as_default():
        step, train = _model()
        listener = _Listener()
        saver = tf.train.Saver()
        hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, saver=saver,
                                            listeners=[listener])
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(train)
        tf.summary.FileWriterCache.clear()
    assert listener.calls == ["begin", ("before", 0), ("after", 0), ("before", 2),
                              ("after", 2), ("before", 3), ("after", 3), ("end", 3)]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == \
        ["model.ckpt-0", "model.ckpt-2", "model.ckpt-3"]
    assert os.path.exists(tmp_path / "graph.pbtxt")
    assert os.path.exists(tmp_path / "model.ckpt-3.meta")
    logs = [e.session_log for e in _events(str(tmp_path)) if e.HasField("session_log")]
    assert [log.checkpoint_path for log in logs] == [str(tmp_path / "model.ckpt")] * 3


def test_checkpoint_listener_can_stop_training_and_saver_errors(tmp_path):
    with tf.Graph().as_default():
        step, train = _model()
        hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=1,
                                            saver=tf.train.Saver(),
                                            listeners=[_Listener(stop_after=2)])
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            while not sess.should_stop():
                sess.run(train)
        assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-2")
        tf.summary.FileWriterCache.clear()
    with pytest.raises(ValueError, match="both saver and scaffold"):
        tf.train.CheckpointSaverHook(str(tmp_path), save_steps=1, saver=object(),
                                     scaffold=tf.train.Scaffold())
    with tf.Graph().as_default():
        _model()
        hook = tf.train.CheckpointSaverHook(str(tmp_path / "x"), save_steps=1)
        with pytest.raises(RuntimeError, match="No items in collection savers"):
            tf.train.MonitoredSession(
                session_creator=tf.train.ChiefSessionCreator(
                    scaffold=tf.train.Scaffold(saver=tf.train.Saver())),
                hooks=[hook])
        tf.summary.FileWriterCache.clear()
