"""Every process of a cluster exits when its main returns (issue 25): server threads never
hold up interpreter exit, a step whose caller went away or whose server stopped is
cancelled on every task, and a ps task's `server.join()` returns once its chief closes the
task's SERVER_DONE_QUEUE."""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import replica_trainer
import trainflow.compat.v1 as tf
from local_cluster import free_ports, local_cluster
from trainflow._src.distributed.daemon_pool import DaemonPool
from trainflow._src.distributed.server_lib import SERVER_DONE_QUEUE
from trainflow._src.framework import errors

CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)
_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), PYTHONUNBUFFERED="1")


def _spawn(argv):
    return subprocess.Popen([sys.executable, *argv], env=_ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


# -- the pool the servers run on ------------------------------------------------------
def test_daemon_pool_runs_calls_on_daemon_threads():
    pool = DaemonPool(max_workers=4, thread_name_prefix="test-pool")
    release = threading.Event()
    blocked = [pool.submit(release.wait, 30) for _ in range(4)]
    queued = pool.submit(lambda a, b=0: a + b, 2, b=3)
    failing = pool.submit(int, "x")
    names = [t for t in threading.enumerate() if t.name.startswith("test-pool_")]
    assert len(names) == 4 and all(t.daemon for t in names)
    release.set()
    assert [f.result(10) for f in blocked] == [True] * 4
    assert queued.result(10) == 5
    with pytest.raises(ValueError):
        failing.result(10)
    release.clear()
    busy = [pool.submit(release.wait, 30) for _ in range(4)]
    deadline = time.monotonic() + 10
    while not all(f.running() for f in busy) and time.monotonic() < deadline:
        time.sleep(0.01)
    waiting = pool.submit(time.time)
    pool.shutdown(wait=True, cancel_futures=True)  # returns with calls still blocked
    assert waiting.cancelled() and not any(f.done() for f in busy)
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(time.time)
    release.set()


# -- cancellation -----------------------------------------------------------------------
def _ps_queue_graph(cluster):
    g = tf.Graph()
    with g.as_default(), tf.device("/job:ps/task:0"):
        q = tf.FIFOQueue(10, tf.float32, shapes=[[]], shared_name="exit_q", name="exit_q")
        ops = q.dequeue(), q.enqueue(7.0), q.size()
    return g, ops


def test_stopping_a_server_cancels_the_steps_it_started_on_other_tasks():
    with local_cluster(ps=1, workers=1, config=CONFIG) as (cluster, servers):
        g, (dequeue, enqueue, size) = _ps_queue_graph(cluster)
        outcome = []
        sess = tf.Session(servers["worker"][0].target, graph=g)

        def _blocked():
            try:
                outcome.append(sess.run(dequeue))
            except errors.OpError as e:
                outcome.append(e)

        t = threading.Thread(target=_blocked, daemon=True)
        t.start()
        time.sleep(1.0)  # the dequeue now waits on the ps
        servers["worker"][0].stop()
        t.join(10)
        assert not t.is_alive() and isinstance(outcome[0], errors.OpError)
        # The ps's half of the step was cancelled: nobody takes what comes next.
        with tf.Session(servers["ps"][0].target, graph=g) as ps_sess:
            ps_sess.run(enqueue)
            time.sleep(0.5)
            assert ps_sess.run(size) == 1


def _running(server):
    return server._worker.steps_running()  # noqa: SLF001 - the ps's own count


_CLIENT = """
import sys
import trainflow.compat.v1 as tf
ps, worker = sys.argv[1], sys.argv[2]
cluster = tf.train.ClusterSpec({"ps": [ps], "worker": [worker]})
server = tf.train.Server(cluster, "worker", 0)
with tf.device("/job:ps/task:0"):
    q = tf.FIFOQueue(10, tf.float32, shapes=[[]], shared_name="exit_q", name="exit_q")
print("waiting", flush=True)
tf.Session(server.target).run(q.dequeue())
"""


def test_a_step_whose_master_dies_is_cancelled_on_the_ps():
    ps_port, worker_port = free_ports(2)
    spec = {"ps": [f"localhost:{ps_port}"], "worker": [f"localhost:{worker_port}"]}
    ps = tf.train.Server(spec, "ps", 0, config=CONFIG)
    client = _spawn(["-c", _CLIENT, spec["ps"][0], spec["worker"][0]])
    try:
        assert client.stdout.readline().strip() == "waiting"
        g, (_, enqueue, size) = _ps_queue_graph(tf.train.ClusterSpec(spec))
        with tf.Session(ps.target, graph=g) as sess:
            deadline = time.monotonic() + 60
            while not _running(ps) and time.monotonic() < deadline:
                time.sleep(0.1)  # the client's dequeue reaches the ps
            assert _running(ps) == 1
            client.kill()
            client.wait(10)
            deadline = time.monotonic() + 20
            while _running(ps) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _running(ps) == 0
            sess.run(enqueue)
            time.sleep(0.5)
            assert sess.run(size) == 1
    finally:
        client.kill()
        client.wait(10)
        ps.stop()


# -- ps tasks that end ------------------------------------------------------------------
def test_join_returns_when_the_done_queue_is_closed():
    with local_cluster(ps=1, workers=1, config=CONFIG) as (cluster, servers):
        ps = servers["ps"][0]
        assert ps.join(timeout=0.3) is False
        g = tf.Graph()
        with g.as_default(), tf.device("/job:ps/task:0"):
            done = tf.FIFOQueue(1, tf.int32, shapes=[[]], shared_name=SERVER_DONE_QUEUE)
            close = done.close()
        joined = []
        t = threading.Thread(target=lambda: joined.append(ps.join()), daemon=True)
        t.start()
        with tf.Session(servers["worker"][0].target, graph=g) as sess:
            sess.run(close)
        t.join(10)
        assert joined == [True]


# -- whole processes --------------------------------------------------------------------
def test_sync_replicas_trainer_processes_exit_on_their_own(tmp_path):
    """TF's mnist_replica in miniature (Supervisor never stopped, session never closed,
    the chief's queue runner blocked in the ps's accumulator at the end): 1 ps and 2
    workers, all three processes end by themselves."""
    ports = free_ports(3)
    hosts = [f"--ps_hosts=localhost:{ports[0]}",
             f"--worker_hosts=localhost:{ports[1]},localhost:{ports[2]}"]
    extra = ["--train_steps=12", "--done_queue", "--sync_replicas"]
    tasks = [("ps", 0), ("worker", 0), ("worker", 1)]
    logs = [tmp_path / f"{job}{i}.log" for job, i in tasks]
    env = dict(_ENV, PYTHONFAULTHANDLER="1")
    procs = []
    for (job, i), log in zip(tasks, logs):
        with open(log, "w") as out:
            procs.append(subprocess.Popen(
                [sys.executable, replica_trainer.__file__, *hosts, f"--job_name={job}",
                 f"--task_index={i}", *extra], env=env, stdout=out,
                stderr=subprocess.STDOUT))
    deadline = time.monotonic() + 120
    try:
        for p in procs:
            p.wait(max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGABRT)  # faulthandler writes every thread's stack
                p.wait(10)
        pytest.fail("a task did not exit:\n" + "\n".join(
            f"--- {log.name}\n{log.read_text()[-6000:]}" for log in logs))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(10)
    outs = [log.read_text() for log in logs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    assert "ps done" in outs[0]
    assert "worker 0 done: global step" in outs[1] and "worker 1 done" in outs[2]
