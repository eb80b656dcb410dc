"""`tf.test.create_local_cluster`: a cluster of in-process gRPC servers on localhost."""
import socket

from trainflow._src.distributed.server_lib import Server
from trainflow._src.train.cluster_spec import ClusterSpec

__all__ = ["create_local_cluster"]


def _unused_ports(n):
    """`n` distinct ports free on localhost now (bound together, then released)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """(workers, ps_servers): started Servers of the jobs "worker" and "ps" on localhost,
    `num_workers` and `num_ps` of them; `Session(workers[0].target)` runs on the cluster."""
    ports = _unused_ports(num_workers + num_ps)
    cluster = {"worker": ["localhost:%s" % p for p in ports[:num_workers]]}
    if num_ps > 0:
        cluster["ps"] = ["localhost:%s" % p for p in ports[num_workers:]]
    spec = ClusterSpec(cluster)
    workers = [Server(spec, job_name="worker", protocol=protocol, task_index=i,
                      config=worker_config, start=True) for i in range(num_workers)]
    ps_servers = [Server(spec, job_name="ps", protocol=protocol, task_index=i,
                         config=ps_config, start=True) for i in range(num_ps)]
    return workers, ps_servers
