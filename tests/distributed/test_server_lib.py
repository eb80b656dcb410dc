"""tf.train.Server: its ServerDef as TF builds it, its target, what it binds."""
import socket
import subprocess
import sys

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from local_cluster import free_ports


def test_create_local_server():
    s = tf.train.Server.create_local_server()
    try:
        assert s.target.startswith("grpc://localhost:")
        port = int(s.target.rsplit(":", 1)[1])
        assert port > 0
        sd = s.server_def
        assert sd.job_name == "localhost" and sd.task_index == 0 and sd.protocol == "grpc"
        assert sd.cluster.job[0].tasks[0] == f"localhost:{port}"
        s.start()  # idempotent
        assert not s.join(timeout=0.01)
    finally:
        s.stop()
    assert s.join(timeout=1)


def test_server_def_completion():
    port, = free_ports(1)
    sd = tf.train.ServerDef(cluster=tf.train.ClusterSpec(
        {"worker": [f"localhost:{port}"]}).as_cluster_def(), job_name="worker",
        protocol="grpc")
    s = tf.train.Server(sd, task_index=0, config=tf.ConfigProto(
        operation_timeout_in_ms=1234), start=False)
    try:
        assert s.server_def.default_session_config.operation_timeout_in_ms == 1234
        assert s.target == f"grpc://localhost:{port}"
    finally:
        s.stop()


@pytest.mark.parametrize("args,kwargs,exc,msg", [
    (({"ps": ["a:1"], "worker": ["b:1"]},), {}, ValueError, "explicit `job_name`"),
    (({"worker": ["a:1", "b:1"]},), {}, ValueError, "explicit `task_index`"),
    ((42,), {}, TypeError, "Could not convert"),
    (({"worker": ["localhost:0"]},), {"protocol": "mpi"}, errors.NotFoundError, "protocol"),
])
def test_bad_arguments(args, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        tf.train.Server(*args, start=False, **kwargs)


def test_binds_only_its_cluster_address():
    # The task's entry names 127.0.0.1: nothing else on the machine answers for it.
    s = tf.train.Server({"w": ["127.0.0.1:0"]})
    try:
        port = int(s.target.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        addrs = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None,
                                                     socket.AF_INET)} - {"127.0.0.1",
                                                                          "127.0.1.1"}
        for addr in addrs:
            with pytest.raises(OSError):
                socket.create_connection((addr, port), timeout=2).close()
    finally:
        s.stop()


def test_import_trainflow_does_not_load_grpc():
    code = "import sys, trainflow; import trainflow.compat.v1 as tf; tf.train.Server; " \
           "print('grpc' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip()
    assert out == "False"
