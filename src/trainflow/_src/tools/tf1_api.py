"""TF 2.21's `tf.compat.v1` symbols (`data/tf1_api_symbols.txt`, a walk of it: TF 1.15's API
with the few names TF 2.x added) and whether a namespace has one; `trainflow ops` and its
`--check` read both."""
import os

_SYMBOLS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                             "tf1_api_symbols.txt")
_MISSING = object()


def tf1_symbols():
    """TF 2.21's `tf.compat.v1` symbols (`tf.train.AdamOptimizer` ...), sorted."""
    with open(_SYMBOLS_FILE, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def _resolve(root, path):
    value = root
    for part in path.split(".")[1:]:
        try:
            value = getattr(value, part)
        except Exception:  # noqa: BLE001 - a lazy namespace that cannot load is missing too
            return _MISSING
    return value


def resolves(root, symbol):
    """Whether `symbol` ("tf.train.AdamOptimizer") exists under the namespace `root`."""
    return _resolve(root, symbol) is not _MISSING
