"""Every import of a trainflow module in the package, function-level ones included, names
a module that exists (lazy imports are not reached by other tests until they run)."""
import ast
import importlib.util
import pathlib

import trainflow

SRC = pathlib.Path(trainflow.__file__).parent


def _imports():
    for path in sorted(SRC.rglob("*.py")):
        if path.name.endswith("_pb2.py"):
            continue
        rel = path.relative_to(SRC.parent).with_suffix("")
        package = ".".join(rel.parts[:-1] if rel.name != "__init__" else rel.parts[:-1])
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, node.lineno, alias.name, None
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    yield path, node.lineno, base, alias.name


def test_every_trainflow_import_names_an_existing_module():
    missing = []
    for path, line, module, name in _imports():
        if not module.startswith("trainflow"):
            continue
        if importlib.util.find_spec(module) is None:
            missing.append(f"{path.relative_to(SRC.parent)}:{line} {module}")
            continue
        if name is not None and name != "*":
            sub = f"{module}.{name}"
            spec = importlib.util.find_spec(module)
            is_package = spec.submodule_search_locations is not None
            if is_package and importlib.util.find_spec(sub) is not None:
                continue
            if not hasattr(importlib.import_module(module), name):
                missing.append(f"{path.relative_to(SRC.parent)}:{line} {module}.{name}")
    assert not missing, "imports of names that do not exist:\n" + "\n".join(missing)
