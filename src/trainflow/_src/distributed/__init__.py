"""trainflow._src.distributed: Server and TensorFlow's gRPC master/worker runtime.

Importing this package registers the `grpc://` session target with the runtime;
grpcio itself is imported only when a server or a remote session is created.
"""
from trainflow._src.runtime import targets as _targets
from trainflow._src.distributed import send_recv as _send_recv  # noqa: F401  (_Send/_Recv ops)


def _remote_session(target, graph, config):
    from trainflow._src.distributed import client  # lazy: master protos, out of `import trainflow`
    return client.RemoteSession(target, graph, config)


def _reset(target, containers):
    from trainflow._src.distributed import client  # lazy: master protos, out of `import trainflow`
    client.reset(target, containers)


_targets.register_protocol("grpc://", _remote_session, _reset)
