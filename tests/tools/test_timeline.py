"""Timeline: Chrome traces of step stats, from an in-process session and from a grpc
cluster, and the same trace as TensorFlow's Timeline for the same StepStats."""
import json

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.protos import step_stats_pb2
from trainflow._src.tools.timeline import Timeline
from local_cluster import local_cluster
from tf_interop import TF_PYTHON, run_json

FULL = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def _stats():
    """Two devices; overlapping ops on one lane each; outputs so that data flows."""
    stats = step_stats_pb2.StepStats()
    a = stats.dev_stats.add(device="/job:ps/replica:0/task:0/device:CPU:0")
    b = stats.dev_stats.add(device="/job:worker/replica:0/task:0/device:CPU:0")
    for dev, name, label, start, dur, nbytes in [
            (a, "x", "x = Const()", 100, 5, 8),
            (a, "y", "y = Const()", 102, 6, 8),
            (a, "s", "s = AddV2(x, y)", 110, 4, 8),
            (b, "r", "r = _Recv()", 101, 20, 0),
            (b, "m", "m = Mul(s/_3, r)", 125, 3, 16),
            (b, "c", "c = NoOp(^m)", 130, 1, 0)]:
        ns = dev.node_stats.add(node_name=name, timeline_label=label, all_start_micros=start,
                                all_end_rel_micros=dur, op_end_rel_micros=dur)
        if nbytes:
            alloc = ns.output.add().tensor_description.allocation_description
            alloc.requested_bytes = nbytes
            alloc.allocator_name = "cpu"
    return stats


def test_ops_lanes_and_dataflow():
    trace = json.loads(Timeline(_stats()).generate_chrome_trace_format())["traceEvents"]
    names = [e["args"]["name"] for e in trace if e["ph"] == "M"]
    assert names == ["Allocators",
                     "/job:ps/replica:0/task:0/device:CPU:0 Compute",
                     "/job:ps/replica:0/task:0/device:CPU:0 Tensors",
                     "/job:worker/replica:0/task:0/device:CPU:0 Compute",
                     "/job:worker/replica:0/task:0/device:CPU:0 Tensors"]
    ops = {e["args"]["name"]: e for e in trace if e["ph"] == "X"}
    assert ops["y"]["tid"] == 1 and ops["x"]["tid"] == ops["s"]["tid"] == 0  # y overlaps x
    assert ops["m"]["name"] == "Mul" and ops["m"]["args"]["input0"] == "s/_3"
    assert (ops["m"]["ts"], ops["m"]["dur"], ops["m"]["pid"]) == (125, 3, 3)
    flows = [(e["ph"], e["name"], e["pid"], e["ts"]) for e in trace if e.get("cat") == "DataFlow"]
    # y (lane 1) -> s (lane 0); s on the ps -> m on the worker; x -> s shares a lane.
    assert flows == [("s", "y", 1, 108), ("t", "y", 1, 110),
                     ("s", "s", 1, 114), ("t", "s", 3, 125)]
    memory = json.loads(Timeline(_stats()).generate_chrome_trace_format(
        show_memory=True))["traceEvents"]
    counters = [e["args"]["cpu"] for e in memory if e["ph"] == "C"]
    assert max(counters) == 16 and counters[-1] == 0  # x and y, or m, at once
    with pytest.raises(ValueError, match="op_time"):
        Timeline(_stats()).generate_chrome_trace_format(op_time="wall")


@pytest.mark.skipif(not TF_PYTHON, reason="TRAINFLOW_TF_PYTHON is not set")
def test_same_trace_as_tensorflow():
    code = r'''
import json, sys
from tensorflow.core.framework import step_stats_pb2
from tensorflow.python.client import timeline
stats = step_stats_pb2.StepStats.FromString(bytes.fromhex(sys.argv[1]))
print(json.dumps(json.loads(timeline.Timeline(stats).generate_chrome_trace_format())))
'''
    theirs = run_json(code, _stats().SerializeToString().hex())
    ours = json.loads(Timeline(_stats()).generate_chrome_trace_format())
    assert ours == theirs


def test_traces_of_a_session_and_a_cluster():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2], name="x")
        with tf.device("/job:ps/task:0"):
            w = tf.Variable([1.0, 2.0], name="w")
        out = tf.reduce_sum(w * x, name="out")
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        md = tf.RunMetadata()
        sess.run(out, {x: [1.0, 1.0]}, options=FULL, run_metadata=md)
    ops = {e["args"]["name"] for e in json.loads(Timeline(
        md.step_stats).generate_chrome_trace_format())["traceEvents"] if e["ph"] == "X"}
    assert {"w", "out"} <= ops
    with local_cluster(ps=1, workers=1) as (spec, servers):
        with tf.Session(servers["worker"][0].target, graph=g) as sess:
            sess.run(w.initializer)
            md = tf.RunMetadata()
            sess.run(out, {x: [1.0, 1.0]}, options=FULL, run_metadata=md)
    trace = json.loads(Timeline(md.step_stats, g).generate_chrome_trace_format())
    by_pid = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M"}
    placed = {e["args"]["name"]: by_pid[e["pid"]] for e in trace["traceEvents"]
              if e["ph"] == "X"}
    assert placed["w"].startswith("/job:ps/") and placed["out"].startswith("/job:worker/")
