"""Imports of the package made inside functions are few and explained: a module's
dependencies are read at its top. A lazy import stays only where it keeps a heavy
dependency (protobuf's generated modules, jax, grpc) out of `import trainflow`, or where an
upward call cannot be turned around; each says why in a comment on its line or the line
above."""
import ast
import pathlib

import pytest

import trainflow

PACKAGE = pathlib.Path(trainflow.__file__).parent
MAX_LAZY_IMPORTS = 150


def _imports_package(node):
    if isinstance(node, ast.Import):
        return any(a.name == "trainflow" or a.name.startswith("trainflow.") for a in node.names)
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        return node.level > 0 or module == "trainflow" or module.startswith("trainflow.")
    return False


def _explained(lines, lineno):
    """A comment on the import's line, or above it past the imports of the same block."""
    if "#" in lines[lineno - 1]:
        return True
    k = lineno - 2
    while k >= 0 and lines[k].strip().startswith(("import ", "from ")):
        k -= 1
    return k >= 0 and lines[k].strip().startswith("#")


def _lazy_imports(source):
    """(line, explained) of each package import inside a function of `source`."""
    lines = source.splitlines()
    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if _imports_package(node):
                found.append((node.lineno, _explained(lines, node.lineno)))
    return sorted(set(found))


def _all_lazy_imports():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name.endswith("_pb2.py"):
            continue
        rel = path.relative_to(PACKAGE).as_posix()
        for line, explained in _lazy_imports(path.read_text()):
            yield f"{rel}:{line}", explained


def test_at_most_150_lazy_imports_of_the_package():
    assert len(list(_all_lazy_imports())) <= MAX_LAZY_IMPORTS


def test_every_lazy_import_says_why():
    assert [where for where, explained in _all_lazy_imports() if not explained] == []


@pytest.mark.parametrize("source, expected", [
    ("import trainflow\n", []),
    ("def f():\n    import json\n", []),
    ("def f():\n    from trainflow._src import x\n", [(2, False)]),
    ("def f():\n    from trainflow._src import x  # lazy: jax\n", [(2, True)]),
    ("def f():\n    # grpc stays out of import trainflow\n    import trainflow.a\n", [(3, True)]),
    ("def f():\n    # lazy: protobuf\n    import json\n    from trainflow import b\n",
     [(4, True)]),
])
def test_lazy_imports_are_found(source, expected):
    assert _lazy_imports(source) == expected
