"""Every public namespace is a face: a file of imports and re-exports (a module
`__getattr__`/`__dir__` for lazy loading at most), showing TensorFlow's names for its
namespace (the TF1 symbol list the package carries) and no others beyond the deliberate
extras of docs/face_extras.md; every name a face offers resolves."""
import ast
import collections
import importlib
import pathlib
import types

import pytest

import trainflow
from trainflow._src.tools import support

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = pathlib.Path(trainflow.__file__).parent
EXTRAS_DOC = ROOT / "docs" / "face_extras.md"

# face module -> the TensorFlow namespace it shows.
FACES = {
    "trainflow": "tf",
    "trainflow.compat.v1": "tf",
    "trainflow.app": "tf.app",
    "trainflow.app.flags": "tf.app.flags",
    "trainflow.audio": "tf.audio",
    "trainflow.bitwise": "tf.bitwise",
    "trainflow.quantization": "tf.quantization",
    "trainflow.compat": "tf.compat",
    "trainflow.debugging": "tf.debugging",
    "trainflow.distributions": "tf.distributions",
    "trainflow.random.experimental": "tf.random.experimental",
    "trainflow.dtypes": "tf.dtypes",
    "trainflow.dtypes.experimental": "tf.dtypes.experimental",
    "trainflow.data": "tf.data",
    "trainflow.data.experimental": "tf.data.experimental",
    "trainflow.errors": "tf.errors",
    "trainflow.estimator": "tf.estimator",
    "trainflow.estimator.experimental": "tf.estimator.experimental",
    "trainflow.estimator.export": "tf.estimator.export",
    "trainflow.estimator.inputs": "tf.estimator.inputs",
    "trainflow.experimental": "tf.experimental",
    "trainflow.feature_column": "tf.feature_column",
    "trainflow.gfile": "tf.gfile",
    "trainflow.graph_util": "tf.graph_util",
    "trainflow.image": "tf.image",
    "trainflow.initializers": "tf.initializers",
    "trainflow.io": "tf.io",
    "trainflow.io.gfile": "tf.io.gfile",
    "trainflow.layers": "tf.layers",
    "trainflow.linalg": "tf.linalg",
    "trainflow.logging": "tf.logging",
    "trainflow.lookup": "tf.lookup",
    "trainflow.lookup.experimental": "tf.lookup.experimental",
    "trainflow.manip": "tf.manip",
    "trainflow.nest": "tf.nest",
    "trainflow.losses": "tf.losses",
    "trainflow.math": "tf.math",
    "trainflow.math.special": "tf.math.special",
    "trainflow.metrics": "tf.metrics",
    "trainflow.nn": "tf.nn",
    "trainflow.nn.rnn_cell": "tf.nn.rnn_cell",
    "trainflow.python_io": "tf.python_io",
    "trainflow.queue": "tf.queue",
    "trainflow.ragged": "tf.ragged",
    "trainflow.random": "tf.random",
    "trainflow.resource_loader": "tf.resource_loader",
    "trainflow.saved_model": "tf.saved_model",
    "trainflow.saved_model.builder": "tf.saved_model.builder",
    "trainflow.saved_model.constants": "tf.saved_model.constants",
    "trainflow.saved_model.loader": "tf.saved_model.loader",
    "trainflow.saved_model.main_op": "tf.saved_model.main_op",
    "trainflow.saved_model.signature_constants": "tf.saved_model.signature_constants",
    "trainflow.saved_model.signature_def_utils": "tf.saved_model.signature_def_utils",
    "trainflow.saved_model.tag_constants": "tf.saved_model.tag_constants",
    "trainflow.saved_model.utils": "tf.saved_model.utils",
    "trainflow.sets": "tf.sets",
    "trainflow.signal": "tf.signal",
    "trainflow.sparse": "tf.sparse",
    "trainflow.spectral": "tf.spectral",
    "trainflow.strings": "tf.strings",
    "trainflow.summary": "tf.summary",
    "trainflow.test": "tf.test",
    "trainflow.train": "tf.train",
    "trainflow.train.experimental": "tf.train.experimental",
    "trainflow.train.queue_runner": "tf.train.queue_runner",
    "trainflow.version": "tf.version",
    "trainflow.xla": "tf.xla",
    "trainflow.xla.experimental": "tf.xla.experimental",
}

# (namespace, name) public names TensorFlow's namespace lacks by the symbol list; each
# is explained in docs/face_extras.md.
EXTRAS = {
    ("tf", "flags"): "TF 1.x has tf.flags (absl's flags); the list leaves the alias out",
    ("tf.compat", "v1"): "TF's tf.compat.v1; the list is that namespace and can't hold it",
    # The pre-1.0 summary names docs/architecture.md keeps as aliases (TF1 programs use them).
    ("tf", "scalar_summary"): "pre-1.0 alias",
    ("tf", "histogram_summary"): "pre-1.0 alias",
    ("tf", "image_summary"): "pre-1.0 alias",
    ("tf", "merge_summary"): "pre-1.0 alias",
    ("tf", "merge_all_summaries"): "pre-1.0 alias",
    ("tf.train", "SummaryWriter"): "pre-1.0 alias of FileWriter",
    ("tf.data.experimental", "CheckpointInputPipelineHook"): "TF 1.15 has it; TF 2 dropped it",
}

# Files beside the faces that are no namespace.
NOT_FACES = {"trainflow.__main__", "trainflow._version"}

# Top-level statements a face may hold besides imports: names bound to tables or values.
ALLOWED_FUNCTIONS = {"__getattr__", "__dir__"}
CODE_STATEMENTS = (ast.For, ast.While, ast.With, ast.Try, ast.If, ast.AsyncFor, ast.AsyncWith)


def _tf_names():
    """{namespace: names TF shows there}, sub-namespaces included as names."""
    names = collections.defaultdict(set)
    for symbol in support.tf1_symbols():
        parts = symbol.split(".")
        for i in range(1, len(parts)):
            names[".".join(parts[:i])].add(parts[i])
    return names


TF_NAMES = _tf_names()


def _public(module):
    return {n for n in dir(module) if not n.startswith("_")}


@pytest.fixture(scope="module")
def used():
    """The package fully used: every face imported and every name it offers touched."""
    for _ in range(2):  # a second pass sees submodules the first one bound
        for name in FACES:
            module = importlib.import_module(name)
            for attr in _public(module):
                getattr(module, attr, None)  # one that fails shows in the resolve test
    return {name: importlib.import_module(name) for name in FACES}


def _face_files():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if rel.parts[1:2] == ("_src",):
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        yield path, ".".join(parts)


def _face_path(module):
    return {m: p for p, m in _face_files()}[module]


def test_every_file_outside_src_is_a_listed_face():
    modules = {module for _, module in _face_files()} - NOT_FACES
    assert modules == set(FACES)


@pytest.mark.parametrize("module", sorted(FACES))
def test_face_holds_no_code(module):
    path = _face_path(module)
    tree = ast.parse(path.read_text(), str(path))
    code = [f"{type(node).__name__} {getattr(node, 'name', '')} (line {node.lineno})"
            for node in tree.body
            if isinstance(node, (ast.ClassDef, ast.AsyncFunctionDef) + CODE_STATEMENTS)
            or isinstance(node, ast.FunctionDef) and node.name not in ALLOWED_FUNCTIONS]
    assert code == []


@pytest.mark.parametrize("module, namespace", sorted(FACES.items()))
def test_face_shows_only_tensorflows_names(used, module, namespace):
    extras = sorted(_public(used[module]) - TF_NAMES[namespace]
                    - {name for ns, name in EXTRAS if ns == namespace})
    assert extras == []


@pytest.mark.parametrize("module", sorted(FACES))
def test_a_face_that_loads_lazily_lists_its_lazy_names(module):
    functions = {node.name for node in ast.parse(_face_path(module).read_text()).body
                 if isinstance(node, ast.FunctionDef)}
    assert "__getattr__" not in functions or "__dir__" in functions


@pytest.mark.parametrize("module", sorted(FACES))
def test_every_name_a_face_offers_resolves(used, module):
    face = used[module]
    missing = []
    for name in sorted(_public(face)):
        try:
            getattr(face, name)
        except AttributeError:
            missing.append(name)
    assert missing == []


@pytest.mark.parametrize("module", sorted(FACES))
def test_submodules_a_face_shows_are_faces(used, module):
    shown = {name: value for name, value in vars(used[module]).items()
             if not name.startswith("_") and isinstance(value, types.ModuleType)}
    assert {name: value.__name__ for name, value in shown.items()
            if value.__name__ not in FACES} == {}


def test_extras_are_few_and_documented(used):
    assert len(EXTRAS) <= 10
    for namespace, name in EXTRAS:
        module = next(m for m, ns in FACES.items() if ns == namespace)
        assert hasattr(used[module], name), (namespace, name)
    doc = EXTRAS_DOC.read_text()
    assert [f"{ns}.{name}" for ns, name in EXTRAS if f"`{ns}.{name}`" not in doc] == []
