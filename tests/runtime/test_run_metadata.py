"""RunOptions(trace_level=FULL_TRACE) fills RunMetadata.step_stats."""
import pytest

import trainflow.compat.v1 as tf


@pytest.mark.xla_differs("step stats list one entry per compiled segment, not per op")
def test_full_trace_fills_step_stats():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        pi = tf.identity(p, name="pi")
        out = tf.identity(pi, name="out")
        with tf.Session() as sess:
            opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            md = tf.RunMetadata()
            sess.run(out, {p: [1, 2]}, options=opts, run_metadata=md)
            untraced = tf.RunMetadata()
            sess.run(out, {p: [1, 2]}, run_metadata=untraced)
            sess.run(out, {p: [1, 2]}, options=opts)  # no metadata to fill: fine
    assert len(untraced.step_stats.dev_stats) == 0
    [dev] = md.step_stats.dev_stats
    assert dev.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    stats = {ns.node_name: ns for ns in dev.node_stats}
    assert list(stats) == ["pi", "out"]  # the fed placeholder does not run
    assert stats["pi"].timeline_label == "pi = Identity(p)"
    assert stats["out"].timeline_label == "out = Identity(pi)"
    for ns in stats.values():
        assert ns.all_start_micros > 0
        assert ns.op_end_rel_micros >= ns.op_start_rel_micros >= 0
        assert ns.all_end_rel_nanos >= 0
    assert stats["out"].all_start_nanos >= stats["pi"].all_start_nanos


def test_traced_runs_report_errors_like_untraced_ones():
    import pytest
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, name="needs_feed")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(p, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                         run_metadata=tf.RunMetadata())
    assert info.value.op is p.op
