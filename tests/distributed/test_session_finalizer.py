"""A remote Session the garbage collector finalizes never blocks the thread it is
collected on: the collector can run on a gRPC server's poller, and a CloseSession sent
from there to a master of the same process waited for that very poller until its
deadline (the dropped-connection recovery test met it). The finalizer hands the
CloseSession to a closer thread."""
import gc
import time

import trainflow.compat.v1 as tf
from tcp_proxy import TcpProxy


def _master_sessions(server):
    return len(server._master._sessions)  # noqa: SLF001 - the master's open sessions


def test_a_collected_remote_session_closes_without_blocking_the_collector():
    server = tf.train.Server.create_local_server()
    proxy = TcpProxy(int(server.target.rsplit(":", 1)[1]))
    try:
        g = tf.Graph()
        with g.as_default():
            c = tf.constant(2.0) * 3.0
        sess = tf.Session(f"grpc://localhost:{proxy.port}", graph=g)
        assert sess.run(c) == 6.0
        assert _master_sessions(server) == 1
        proxy.stall()  # the master would not answer a CloseSession now
        start = time.monotonic()
        del sess
        gc.collect()
        assert time.monotonic() - start < 1.0
        proxy.passing()
        deadline = time.monotonic() + 20
        while _master_sessions(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _master_sessions(server) == 0  # closed by the closer thread
    finally:
        proxy.close()
        server.stop()


def test_close_still_waits_for_the_master():
    server = tf.train.Server.create_local_server()
    try:
        with tf.Graph().as_default() as g:
            c = tf.constant(1.0)
        sess = tf.Session(server.target, graph=g)
        sess.run(c)
        sess.close()
        assert _master_sessions(server) == 0
    finally:
        server.stop()
