"""Between-graph replication with SyncReplicasOptimizer on a localhost cluster (1 ps and 2
workers, servers in this process): each worker's MonitoredTrainingSession with the
optimizer's hook, one global step per aggregated update, a clean stop."""
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from local_cluster import local_cluster

CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)
LAST_STEP = 8
LR = 0.25


def _graph(cluster, task):
    """A worker's graph: `v` and the global step on the ps, the same loss on every worker
    (so every aggregated gradient is that of the current `v`, whoever sent it)."""
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(
            worker_device=f"/job:worker/task:{task}", cluster=cluster)):
        gs = tf.train.get_or_create_global_step()
        v = tf.get_variable("v", [3], initializer=tf.constant_initializer([1.0, 2.0, -1.0]))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                             replicas_to_aggregate=2, total_num_replicas=2)
        train = opt.minimize(0.5 * tf.reduce_sum(v * v), global_step=gs)
    return g, gs, v, train, opt.make_session_run_hook(is_chief=task == 0)


def _worker_threads():
    # The workers below and the queue runner threads of the chief.
    return [t for t in threading.enumerate()
            if t.name.endswith(("(_run)", "(_close_on_stop)", "(_work)"))]


# The chief's queue runner, blocked in TakeGradient when its session closes, ends with
# CancelledError raised in its thread, as in TensorFlow.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_two_workers_train_synchronously_and_stop():
    assert not _worker_threads()
    with local_cluster(ps=1, workers=2) as (cluster, servers):
        chief_ready = threading.Event()
        started = threading.Barrier(2, timeout=20)
        runs, failures = {}, []

        def _work(task):
            try:
                g, gs, v, train, hook = _graph(cluster, task)
                if task == 1:
                    # The chief initializes the model; the worker then finds it ready.
                    assert chief_ready.wait(20), "the chief did not start"
                with g.as_default(), tf.train.MonitoredTrainingSession(
                        master=servers["worker"][task].target, is_chief=task == 0,
                        config=CONFIG, stop_grace_period_secs=1,
                        hooks=[hook, tf.train.StopAtStepHook(last_step=LAST_STEP)]) as sess:
                    chief_ready.set()
                    started.wait()
                    runs[task] = 0
                    while not sess.should_stop():
                        sess.run(train)
                        runs[task] += 1
            except Exception as e:  # noqa: BLE001 - reported below
                failures.append(e)
                chief_ready.set()
                started.abort()

        threads = [threading.Thread(target=_work, args=(i,), name=f"worker{i} (_work)")
                   for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not any(t.is_alive() for t in threads), "a worker did not stop"
        assert not failures, failures
        # Both workers stepped; a token or the closed token queue released every run.
        assert runs[0] >= 1 and runs[1] >= 1
        g, gs, v, _, _ = _graph(cluster, 0)
        with tf.Session(servers["worker"][0].target, graph=g, config=CONFIG) as sess:
            step, value = sess.run([gs, v])
    # The chief stops once it sees LAST_STEP; another update may have been under way.
    assert LAST_STEP <= step <= LAST_STEP + 1
    # One update of v per global step: v <- v - LR * v (the mean of equal gradients).
    want = np.array([1.0, 2.0, -1.0], np.float32)
    for _ in range(step):
        want = want - np.float32(LR) * want
    np.testing.assert_allclose(value, want, rtol=1e-6)
    deadline = time.monotonic() + 5
    while _worker_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _worker_threads()
