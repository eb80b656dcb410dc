"""`trainflow cluster`: one process per task with the TF1 trainer flags and TF_CONFIG,
prefixed logs, ps tasks stopped when the workers finish."""
import io
import json
import sys
import textwrap

from trainflow._src import cli
from trainflow._src.tools import cluster

TRAINER = textwrap.dedent('''
    import argparse, json, os, time
    import trainflow.compat.v1 as tf
    p = argparse.ArgumentParser()
    for f in ("job_name", "ps_hosts", "worker_hosts"):
        p.add_argument("--" + f)
    p.add_argument("--task_index", type=int)
    a = p.parse_args()
    assert json.loads(os.environ["TF_CONFIG"])["task"] == {"type": a.job_name,
                                                          "index": a.task_index}
    spec = tf.train.ClusterSpec({"ps": a.ps_hosts.split(","),
                                 "worker": a.worker_hosts.split(",")})
    server = tf.train.Server(spec, a.job_name, a.task_index)
    if a.job_name == "ps":
        server.join()
    with tf.device(tf.train.replica_device_setter(
            worker_device=f"/job:worker/task:{a.task_index}", cluster=spec)):
        v = tf.get_variable("v", [], initializer=tf.zeros_initializer())
        inc = tf.assign_add(v, 1.0)
    with tf.Session(server.target, config=tf.ConfigProto(operation_timeout_in_ms=20000)) as s:
        if a.task_index == 0:
            s.run(v.initializer)
        for _ in range(200):
            try:
                s.run(v)
                break
            except tf.errors.FailedPreconditionError:
                time.sleep(0.05)
        for _ in range(3):
            s.run(inc)
        print("worker done", flush=True)
''')


def test_cluster_trains_and_stops_the_ps(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAINER)
    out = io.StringIO()
    status = cluster.run_cluster([sys.executable, str(script)], ps=1, workers=2, timeout=120,
                                 out=out)
    lines = out.getvalue().splitlines()
    assert status == 0, out.getvalue()
    spec = json.loads(lines[0][len("[cluster] "):])
    assert len(spec["ps"]) == 1 and len(spec["worker"]) == 2
    assert "[worker:0] worker done" in lines and "[worker:1] worker done" in lines


def test_task_flags_and_env():
    spec = {"ps": ["localhost:1"], "worker": ["localhost:2", "localhost:3"]}
    assert cluster.task_argv(["python", "t.py"], spec, "worker", 1) == [
        "python", "t.py", "--job_name=worker", "--task_index=1", "--ps_hosts=localhost:1",
        "--worker_hosts=localhost:2,localhost:3"]
    env = cluster.task_env(spec, "ps", 0, base={})
    assert json.loads(env["TF_CONFIG"]) == {"cluster": spec, "task": {"type": "ps", "index": 0}}


def test_failing_worker_status_and_timeout():
    fail = [sys.executable, "-c", "import sys; print('bye'); sys.exit(3)"]
    out = io.StringIO()
    assert cluster.run_cluster(fail, ps=0, workers=1, timeout=60, out=out) == 3
    assert "[worker:0] bye" in out.getvalue().splitlines()
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    assert cluster.run_cluster(sleep, ps=1, workers=1, timeout=0.5, out=io.StringIO()) == 124


def test_cli_needs_a_command(capsys):
    assert cli.main(["cluster", "--ps", "1", "--workers", "1", "--"]) == 2
    assert "after `--`" in capsys.readouterr().err
