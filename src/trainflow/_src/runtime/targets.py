"""Session targets served in this process: a target string names the resource manager of
a server task (`tf.train.Server.target`), so sessions on it share variables."""
import threading

from trainflow._src.framework import errors

_lock = threading.Lock()
_targets = {}


def register(target, resources):
    """Makes `target` resolve to `resources` (a ResourceManager)."""
    with _lock:
        _targets[target] = resources


def unregister(target):
    with _lock:
        _targets.pop(target, None)


def resources_for(target):
    """The ResourceManager behind `target`.

    Raises:
      UnavailableError: if no server in this process serves `target`.
    """
    with _lock:
        res = _targets.get(target)
    if res is None:
        raise errors.UnavailableError(None, None, f"No server is serving target '{target}' in "
                                                  "this process")
    return res


def reset(target, containers=None):
    """Clears the resource containers `containers` of `target` (the default container
    when None or empty, as TensorFlow's Session.reset does)."""
    if not target:
        return
    entry = _protocol(target)
    if entry is not None:
        entry[1](target, containers)
        return
    resources_for(target).clear_containers(list(containers or []))


# -- remote targets ----------------------------------------------------------------------
# A package above the runtime (distributed/) registers how to open a session on a target
# that starts with a protocol prefix such as "grpc://", without the runtime importing it.
_protocols = {}


def register_protocol(prefix, session_factory, reset_fn):
    """Sessions on targets starting with `prefix` delegate to
    `session_factory(target, graph, config)`; `reset_fn(target, containers)` resets."""
    _protocols[prefix] = (session_factory, reset_fn)


def _protocol(target):
    for prefix, entry in _protocols.items():
        if target.startswith(prefix):
            return entry
    return None


def remote_session(target, graph, config):
    """The remote session object for `target`, or None for an in-process target."""
    entry = _protocol(target) if target else None
    return entry[0](target, graph, config) if entry is not None else None
