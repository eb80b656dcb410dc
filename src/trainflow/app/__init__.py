"""`tf.app`: `tf.app.flags` (absl flags under TF1's names) and `tf.app.run`.

`flags` is imported on first use, so `import trainflow.app` stays cheap.
"""
import importlib as _importlib

from trainflow._src.app.run import run  # noqa: F401

__all__ = ["flags", "run"]


def __getattr__(name):
    if name == "flags":
        return _importlib.import_module("trainflow.app.flags")
    raise AttributeError("module 'trainflow.app' has no attribute %r" % (name,))


def __dir__():
    return sorted(set(globals()) | {"flags"})
