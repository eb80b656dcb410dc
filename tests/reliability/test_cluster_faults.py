"""A localhost cluster (1 ps + 2 workers) training with MonitoredTrainingSession and
checkpoints survives kill -9 of a worker, the ps and the chief at random points, and a
proxy that drops or stalls the connections to the ps (issue 25). The long form, 20+
kills, is scripts/cluster_faults.py."""
import threading
import time

import pytest

import trainflow.compat.v1 as tf
from fault_cluster import FaultCluster
from local_cluster import free_ports
from tcp_proxy import TcpProxy
from trainflow._src.framework import errors


def test_kills_of_a_worker_the_ps_and_the_chief(tmp_path):
    cluster = FaultCluster(str(tmp_path), workers=2, last_step=120, save_steps=10, seed=1)
    try:
        cluster.start()
        assert cluster.wait_progress(5, timeout=90), cluster.logs()
        for task in (cluster.workers[1], cluster.ps, cluster.workers[0]):
            assert cluster.wait_progress(cluster.rng.randint(3, 12), timeout=60), cluster.logs()
            assert cluster.kill_and_restart(task), (task.name, cluster.logs())
        codes = cluster.finish(deadline_s=90)
    finally:
        cluster.close()
    figures = cluster.figures
    assert codes == [0, 0], cluster.logs()
    assert figures["kills"] == figures["resumes"] == 3
    assert figures["hangs"] == 0 and figures["corrupt_checkpoints"] == 0
    assert figures["checkpoints_read"] > 0
    assert figures["below_checkpoint"] == 0, figures
    # A restarted ps is restored from the newest checkpoint: at most one checkpoint
    # interval (and a step in flight per worker) is lost; a worker's restart loses none.
    drops = figures["max_step_drop_by_killed"]
    assert drops["ps"] <= 10 + 2 and drops["worker"] <= 2, figures
    # Training reached its last step (the chief's final checkpoint is at it).
    last = tf.train.latest_checkpoint(str(tmp_path))
    assert last is not None and int(last.rsplit("-", 1)[1]) >= 120


class _Creations(tf.train.SessionRunHook):
    def __init__(self):
        self.count = 0

    def after_create_session(self, session, coord):
        self.count += 1


def _proxied_cluster():
    """A ps and a worker server in this process; the worker reaches the ps through a
    TcpProxy. Returns (ps, worker, proxy)."""
    ps_port, worker_port = free_ports(2)
    proxy = TcpProxy(ps_port)
    worker_addr = f"localhost:{worker_port}"
    ps = tf.train.Server({"ps": [f"localhost:{ps_port}"], "worker": [worker_addr]}, "ps", 0)
    worker = tf.train.Server({"ps": [f"localhost:{proxy.port}"], "worker": [worker_addr]},
                             "worker", 0)
    return ps, worker, proxy


def _train_graph():
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:0", ps_tasks=1)):
        gs = tf.train.get_or_create_global_step()
        v = tf.get_variable("v", [], initializer=tf.zeros_initializer())
        train = tf.group(tf.assign_add(v, 1.0), tf.assign_add(gs, 1))
    return g, gs, train


def test_dropped_connections_are_recovered_by_monitored_session(tmp_path):
    ps, worker, proxy = _proxied_cluster()
    try:
        g, gs, train = _train_graph()
        creations = _Creations()
        config = tf.ConfigProto(operation_timeout_in_ms=5000)
        with g.as_default(), tf.train.MonitoredTrainingSession(
                master=worker.target, checkpoint_dir=str(tmp_path), save_checkpoint_steps=5,
                save_summaries_steps=None, save_summaries_secs=None,
                log_step_count_steps=None, config=config, hooks=[creations]) as sess:
            for _ in range(12):
                sess.run(train)
            before = sess.run(gs)
            # Connections reset for a second: the step fails with UnavailableError and
            # MonitoredSession makes a new session, which restores the newest checkpoint.
            proxy.drop()
            threading.Timer(1.0, proxy.passing).start()
            start = time.monotonic()
            for _ in range(5):
                sess.run(train)
            after = sess.run(gs)
        assert proxy.dropped >= 1 and creations.count >= 2
        assert time.monotonic() - start < 30
        assert before - 5 <= after - 5 <= before + 5  # resumed from the newest checkpoint
    finally:
        proxy.close()
        worker.stop()
        ps.stop()


def test_a_stalled_connection_ends_the_step_with_deadline_exceeded(tmp_path):
    ps, worker, proxy = _proxied_cluster()
    try:
        g, gs, train = _train_graph()
        config = tf.ConfigProto(operation_timeout_in_ms=1500)
        with g.as_default(), tf.train.MonitoredTrainingSession(
                master=worker.target, checkpoint_dir=str(tmp_path), save_checkpoint_steps=5,
                save_summaries_steps=None, save_summaries_secs=None,
                log_step_count_steps=None, config=config) as sess:
            sess.run(train)
            proxy.stall()
            start = time.monotonic()
            # Not a preemption error in TensorFlow either: the caller sees it, in bounded
            # time, instead of a hang.
            with pytest.raises(errors.DeadlineExceededError):
                sess.run(train)
            assert time.monotonic() - start < 15
            proxy.passing()
    finally:
        proxy.close()
        worker.stop()
        ps.stop()
