"""Session targets served in this process: a target string names the resource manager of
a server task (`tf.train.Server.target`), so sessions on it share variables."""
import threading

from trainflow.framework import errors

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
    """Clears the resources of `target` (all containers; named containers are not kept
    apart here)."""
    if not target:
        return
    resources_for(target).clear()
