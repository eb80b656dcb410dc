"""Localhost clusters for the distributed tests: free ports, servers stopped at the end."""
import contextlib
import socket


def free_ports(n):
    """`n` ports free on localhost right now."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def cluster_dict(ps=1, workers=2):
    ports = free_ports(ps + workers)
    return {"ps": [f"localhost:{p}" for p in ports[:ps]],
            "worker": [f"localhost:{p}" for p in ports[ps:]]}


@contextlib.contextmanager
def local_cluster(ps=1, workers=2, config=None):
    """(ClusterSpec, {"ps": [Server], "worker": [Server]}) running in this process."""
    import trainflow.compat.v1 as tf
    spec = tf.train.ClusterSpec(cluster_dict(ps, workers))
    servers = {"ps": [], "worker": []}
    try:
        for job in ("ps", "worker"):
            for i in range(spec.num_tasks(job)):
                servers[job].append(tf.train.Server(spec, job, i, config=config))
        yield spec, servers
    finally:
        for job in ("worker", "ps"):
            for s in servers[job]:
                s.stop(0)
