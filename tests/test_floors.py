"""The floors of docs/architecture.md hold: no import inside src/trainflow (lazy ones
included) runs from a lower floor to a higher one, and nothing imports the public
`trainflow` package."""
import ast
import pathlib

import pytest

import trainflow

PACKAGE = pathlib.Path(trainflow.__file__).parent
FLOORS = {"protos": 0, "formats": 1, "framework": 2, "kernels": 3, "ops": 4, "gradients": 4,
          "runtime": 5, "image": 6, "nn": 6, "layers": 6, "losses": 6, "metrics": 6,
          "summary": 7, "train": 8, "distributed": 9, "tools": 10, "cli": 10}
# Leaves anything may import.
LEAVES = ("framework.errors", "framework.dtypes", "framework.tensor_shape",
          "framework.nest_util", "formats.crc32c", "tf_logging")
PUBLIC = 99
# The public namespaces (trainflow.train, trainflow.nn ...) stand on the top floor, beside the
# command (the demo is a TF1 program written against them).
FACE = 10


def _floor(module):
    parts = module.split(".")
    if parts[0] != "trainflow":
        return None
    if len(parts) == 1:
        return PUBLIC
    if parts[1] != "_src":
        return FACE
    parts = parts[1:]
    if len(parts) == 1:
        return None
    rest = ".".join(parts[1:])
    if any(rest == leaf or rest.startswith(leaf + ".") for leaf in LEAVES):
        return None
    return FLOORS.get(parts[1])


def _imports(path, package):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if path.name == "__init__.py" or "protos" in rel.parts:
            continue  # faces re-export; generated code is not ours
        yield path, ".".join(rel.parts)


def test_no_import_runs_up_a_floor():
    upward = []
    for path, module in _modules():
        mine = _floor(module)
        if mine is None or mine in (PUBLIC, FACE):
            continue
        for line, target in _imports(path, module.rsplit(".", 1)[0]):
            theirs = _floor(target)
            if theirs is not None and theirs > mine:
                upward.append(f"{module}:{line} -> {target}")
    assert upward == []


@pytest.mark.parametrize("module, expected", [
    ("trainflow._src.framework.graph", 2), ("trainflow._src.ops.math.matmul", 4),
    ("trainflow._src.runtime.planner", 5), ("trainflow", PUBLIC),
    ("trainflow._src.framework.errors", None), ("numpy", None),
])
def test_floor_of(module, expected):
    assert _floor(module) == expected
