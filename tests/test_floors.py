"""The floors of docs/architecture.md hold: no import inside src/trainflow (lazy ones
included) runs from a lower floor to a higher one, and nothing imports the public
`trainflow` package. Inside `_src/ops` the levels of OPS_LEVELS hold the same way, and
no module-level import anywhere in the package closes a cycle."""
import ast
import fnmatch
import pathlib
import subprocess
import sys

import pytest

import trainflow

PACKAGE = pathlib.Path(trainflow.__file__).parent
FLOORS = {"protos": 0, "formats": 1, "gfile": 1, "datasets": 1, "framework": 2, "kernels": 3,
          "ops": 4, "gradients": 4, "xla": 4, "runtime": 5, "image": 6, "nn": 6, "layers": 6,
          "distributions": 6,
          "losses": 6, "metrics": 6, "data": 6, "compat": 6, "linalg": 6, "module": 6,
          "summary": 7, "train": 8,
          "lookup": 8, "feature_column": 8, "test": 8, "distributed": 9, "saved_model": 9,
          "graph_util": 5, "estimator": 10, "serving": 10, "tools": 10, "cli": 10, "app": 10}
# Leaves anything may import.
LEAVES = ("framework.errors", "framework.dtypes", "framework.tensor_shape",
          "framework.nest_util", "formats.crc32c", "tf_logging")
PUBLIC = 99
# The public namespaces (trainflow.train, trainflow.nn ...) stand on the top floor, beside the
# command (the demo is a TF1 program written against them).
FACE = 10


# The levels inside `_src/ops`, lowest first: (name, module patterns under `ops.`). A
# module takes the first level, in the order of _LEVEL_ORDER, one of whose patterns
# matches it. A module-level import never runs up a level; an import made inside a
# function may, only to a module that `import trainflow` does not load (that is why it is
# made there).
OPS_LEVELS = [
    # NumPy kernels and shape arithmetic: no op builders.
    ("helpers", ["array.shape_util", "math.shapes", "math.special", "nn.shape_util",
                 "nn.conv_geometry", "nn.window_phases", "nn.pool_loops", "nn.max_pool_fast",
                 "nn.separable_max", "nn.*_kernels", "image.*_kernels", "image.png16",
                 "random.random_kernels", "state.optimizer_rules", "state.apply_kernels",
                 "state.xla_lowering_util"]),
    # The array primitives: cast, shape and reshape, creation, gather, concat and stack,
    # slicing, identity.
    ("array primitives", ["array.cast", "array.create", "array.shape", "array.gather",
                          "array.join", "array.slicing", "array.identity"]),
    # The math primitives built on them: element-wise arithmetic, matmul, reductions,
    # segments, arg-max and scans, tensordot, the Tensor operators.
    ("math primitives", ["math.cwise", "math.matmul", "math.arith", "math.reductions",
                         "math.segment", "math.argmax_scan", "math.tensordot",
                         "math.overloads"]),
    # Composite builders and gradients of every family.
    ("builders", ["*"]),
    # The family modules the faces import from, and the XLA lowerings (loaded by the backend).
    ("families", ["array.array_ops", "math.math_ops", "control_flow.control_flow_ops",
                  "linalg.linalg_api", "*.xla_lowerings", "state.xla_resource_lowerings"]),
]
_LEVEL_ORDER = ("helpers", "array primitives", "math primitives", "families", "builders")


def _floor(module):
    parts = module.split(".")
    if parts[0] != "trainflow":
        return None
    if len(parts) == 1:
        return PUBLIC
    if parts[1] == "_version":
        return None  # a leaf: the package version string
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


def test_every_implementation_package_has_a_floor():
    src = PACKAGE / "_src"
    names = {p.stem if p.is_file() else p.name for p in src.iterdir()
             if (p.is_dir() and (p / "__init__.py").exists())
             or (p.suffix == ".py" and p.name != "__init__.py")}
    assert sorted(names - set(FLOORS) - {leaf.split(".")[0] for leaf in LEAVES}) == []


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


def _ops_level(module):
    prefix = "trainflow._src.ops."
    if not module.startswith(prefix):
        return None
    rest = module[len(prefix):]
    names = [name for name, _ in OPS_LEVELS]
    for name in _LEVEL_ORDER:
        patterns = OPS_LEVELS[names.index(name)][1]
        if any(fnmatch.fnmatchcase(rest, pattern) for pattern in patterns):
            return names.index(name)
    return None


def _package_modules():
    """Module name -> path, for every module of the package (generated protos aside)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name.endswith("_pb2.py") or path.name.endswith("_pb2_grpc.py"):
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _resolve(target, modules):
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def _imports_by_kind(path, module, modules):
    """(line, target module, made inside a function) for each package import of `path`;
    `if TYPE_CHECKING:` blocks are skipped."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = []

    def walk(body, lazy):
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for line, target in _imports_of(node, package):
                    resolved = _resolve(target, modules)
                    if resolved and resolved != module:
                        out.append((line, resolved, lazy))
            for field in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(node, field, None)
                if isinstance(sub, list):
                    walk(sub, lazy or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))

    walk(ast.parse(path.read_text(), str(path)).body, False)
    return out


def _imports_of(node, package):
    if isinstance(node, ast.Import):
        return [(node.lineno, alias.name) for alias in node.names]
    base = node.module or ""
    if node.level:
        parent = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(parent + ([base] if base else []))
    return [(node.lineno, f"{base}.{alias.name}") for alias in node.names]


def _loaded_by_import_trainflow():
    code = "import sys, trainflow; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=None).stdout
    return set(out.split())


def test_no_import_runs_up_a_level_inside_ops():
    modules = _package_modules()
    eager = _loaded_by_import_trainflow()
    upward = []
    for module, path in modules.items():
        mine = _ops_level(module)
        if mine is None:
            continue
        for line, target, lazy in _imports_by_kind(path, module, modules):
            theirs = _ops_level(target)
            if theirs is not None and theirs > mine and not (lazy and target not in eager):
                upward.append(f"{module}:{line} -> {target}")
    assert upward == []


def _cycles(edges):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in edges:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(edges[root])))]
        while work:
            node, successors = work[-1]
            nxt = next(successors, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while node not in component:
                        component.add(stack.pop())
                    on_stack.difference_update(component)
                    if len(component) > 1:
                        found.append(sorted(component))
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(edges[nxt]))))
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
    return found


def test_no_module_level_import_cycle():
    modules = _package_modules()
    edges = {module: {target for _, target, lazy in _imports_by_kind(path, module, modules)
                      if not lazy} for module, path in modules.items()}
    assert _cycles(edges) == []


@pytest.mark.parametrize("edges, expected", [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_cycles_finds_strongly_connected_modules(edges, expected):
    assert _cycles(edges) == expected


@pytest.mark.parametrize("module, expected", [
    ("trainflow._src.ops.array.shape_util", "helpers"),
    ("trainflow._src.ops.nn.conv_kernels", "helpers"),
    ("trainflow._src.ops.array.cast", "array primitives"),
    ("trainflow._src.ops.math.reductions", "math primitives"),
    ("trainflow._src.ops.array.layout", "builders"),
    ("trainflow._src.ops.math.clip_ops", "builders"),
    ("trainflow._src.ops.array.gather_grad", "builders"),
    ("trainflow._src.ops.math.math_ops", "families"),
    ("trainflow._src.ops.nn.xla_lowerings", "families"),
])
def test_ops_level_of(module, expected):
    assert OPS_LEVELS[_ops_level(module)][0] == expected


def test_no_cycle_in_framework_counting_lazy_imports():
    """GraphDef/FunctionDef export (graph_export) sits below the graph core and import
    (graph_def, loop_frames, function_import) above it: no cycle, lazy imports included."""
    modules = _package_modules()
    inside = {m: p for m, p in modules.items() if m.startswith("trainflow._src.framework.")}
    edges = {module: {target for _, target, _ in _imports_by_kind(path, module, modules)
                      if target in inside} for module, path in inside.items()}
    assert _cycles(edges) == []


def test_no_cycle_below_the_builders_counting_lazy_imports():
    """The helpers and the primitives import nothing that imports them back, not even
    inside a function."""
    modules = _package_modules()
    builders = [name for name, _ in OPS_LEVELS].index("builders")
    low = {m: p for m, p in modules.items()
           if _ops_level(m) is not None and _ops_level(m) < builders}
    edges = {module: {target for _, target, _ in _imports_by_kind(path, module, modules)
                      if target in low} for module, path in low.items()}
    assert _cycles(edges) == []
