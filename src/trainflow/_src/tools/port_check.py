"""`trainflow ops --check PROGRAM.py`: which `tf.*` names a TF1 program uses that
trainflow lacks, found by reading its source (nothing is run).

The program's TensorFlow imports (`import tensorflow as tf`, `import
tensorflow.compat.v1 as tf`, `from tensorflow.compat import v1 as tf`, or the same from
trainflow) name the aliases; every `alias.a.b` in the code is matched to the longest
TF 1.15 symbol it starts with (`tf.GraphKeys.LOSSES` uses `tf.GraphKeys`), and
`tf.compat.v1.` inside a chain is read as `tf.`.
"""
import ast

from trainflow._src.tools.tf1_api import resolves, tf1_symbols

_ROOTS = {"tensorflow": "tf", "tensorflow.compat.v1": "tf", "trainflow": "tf",
          "trainflow.compat.v1": "tf"}


def _aliases(tree):
    """Local names bound to the TF (or trainflow) namespace."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in _ROOTS and a.asname:
                    names.add(a.asname)
                elif a.name in ("tensorflow", "trainflow") and not a.asname:
                    names.add(a.name)
        elif isinstance(node, ast.ImportFrom) and node.module in ("tensorflow.compat",
                                                                   "trainflow.compat"):
            names.update(a.asname or a.name for a in node.names if a.name == "v1")
    return names


def _chains(tree, aliases):
    """(line, "tf.a.b.c") for each outermost attribute chain rooted at an alias."""
    inner = set()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        parts, cur = [], node
        while isinstance(cur, ast.Attribute):
            inner.add(id(cur))
            parts.append(cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name) and cur.id in aliases:
            parts = parts[::-1]
            if parts[:2] == ["compat", "v1"]:
                parts = parts[2:]
            if parts:
                found.append((node.lineno, "tf." + ".".join(parts)))
    return found


def uses(source, filename="<program>"):
    """[(line, symbol)] of the TF 1.15 symbols a program's source uses, in order, each
    symbol once; a chain that starts with no known symbol is kept whole."""
    known = set(tf1_symbols())
    tree = ast.parse(source, filename)
    seen, out = set(), []
    for line, chain in sorted(_chains(tree, _aliases(tree))):
        parts = chain.split(".")
        symbol = next((".".join(parts[:n]) for n in range(len(parts), 1, -1)
                       if ".".join(parts[:n]) in known), chain)
        if symbol not in seen:
            seen.add(symbol)
            out.append((line, symbol))
    return out


def check(path, out):
    """Prints `path:line: tf.name` for each missing name and a summary; returns 1 if
    any is missing, else 0.

    Raises:
      OSError: the file cannot be read.
      SyntaxError: it is not Python.
    """
    import trainflow.compat.v1 as tf  # lazy: the whole TF1 namespace, out of CLI startup
    with open(path, encoding="utf-8") as f:
        found = uses(f.read(), path)
    missing = [(line, name) for line, name in found if not resolves(tf, name)]
    for line, name in missing:
        out.write(f"{path}:{line}: {name} is not in trainflow\n")
    out.write(f"{path}: {len(found)} tf names used, {len(missing)} missing\n")
    return 1 if missing else 0
