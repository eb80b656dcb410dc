"""Size rules of the package, written as tests: no module over 600 lines, and the functions
over 80 lines are the known ones listed here (a new one fails: split it, or list it with the
reason it reads better whole). Generated protobuf modules are not ours and are not counted."""
import ast
import pathlib

import pytest

import trainflow

PACKAGE = pathlib.Path(trainflow.__file__).parent
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

# function (module:qualified name) -> why it stays whole
LONG_FUNCTIONS = {
    "_src/ops/io/example_parser.py:parse_sequence_example":
        "the kernel's walk over the context and the feature lists, with TF's per-key checks "
        "and messages",
    "_src/formats/tensor_proto.py:make_tensor_proto":
        "one pass over TF's dtype/shape/verify_shape rules for every Python and NumPy value",
    "_src/ops/control_flow/while_loop.py:while_loop":
        "TF's while_loop signature; each step is a short call, the body is the argument checks",
    "_src/ops/control_flow/cond.py:cond":
        "TF1's cond: both branches built under their Switch pivots, then merged",
    "_src/train/sync_replicas_optimizer.py:SyncReplicasOptimizer.apply_gradients":
        "the chief's accumulators, token queue and sync ops are TF's, built in its order",
    "_src/gradients/gradients_impl.py:gradients":
        "TF's backprop loop: pending counts, aggregation and control dependencies share state",
}


def _python_files():
    for path in sorted(PACKAGE.rglob("*.py")):
        if not path.name.endswith(("_pb2.py", "_pb2_grpc.py")):
            yield path


def _functions(tree, prefix=""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
            yield from _functions(node, prefix + node.name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, prefix + node.name + ".")


def _long_functions():
    found = {}
    for path in _python_files():
        rel = path.relative_to(PACKAGE).as_posix()
        for name, node in _functions(ast.parse(path.read_text(), str(path))):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                found[f"{rel}:{name}"] = lines
    return found


# Generated tables (data, not code a reader follows): their generator keeps them tidy.
GENERATED = {"_src/framework/op_index.py"}


def test_no_module_is_over_600_lines():
    big = {rel: n for path in _python_files()
           if (rel := path.relative_to(PACKAGE).as_posix()) not in GENERATED
           and (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert big == {}


def test_functions_over_80_lines_are_the_listed_ones():
    assert sorted(_long_functions()) == sorted(LONG_FUNCTIONS)


@pytest.mark.parametrize("source, expected", [
    ("def f():\n    pass\n", ["f"]),
    ("class A:\n    def m(self):\n        def inner():\n            pass\n", ["A.m", "A.m.inner"]),
])
def test_functions_are_named_by_their_qualified_name(source, expected):
    assert [name for name, _ in _functions(ast.parse(source))] == expected
