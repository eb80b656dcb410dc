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


def counter_graph(cluster, task):
    """A graph for worker `task` of `cluster` whose train op adds 1 to a ps variable `v`
    and to the global step: (graph, global_step, v, train_op)."""
    import trainflow.compat.v1 as tf
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(
            worker_device=f"/job:worker/task:{task}", cluster=cluster)):
        gs = tf.train.get_or_create_global_step()
        v = tf.get_variable("v", [], initializer=tf.zeros_initializer())
        train = tf.group(tf.assign_add(v, 1.0), tf.assign_add(gs, 1))
    return g, gs, v, train
