"""examples/digits_convnet.py (a TF1 program using tf.layers/losses/metrics) runs and learns."""
import importlib.util
import os

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "digits_convnet.py")


def test_example_trains_to_high_test_accuracy(capsys):
    spec = importlib.util.spec_from_file_location("digits_convnet", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    accuracy = module.main(epochs=2)
    assert accuracy > 0.85
    assert "test accuracy" in capsys.readouterr().out


def test_example_differs_from_tf_only_in_the_two_imports_readme_names():
    """README's claim: the only trainflow lines are `tf` and the bundled digits."""
    import ast
    tree = ast.parse(open(EXAMPLE).read())
    imports = [(n.module if isinstance(n, ast.ImportFrom) else n.names[0].name)
               for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    ours = sorted(m for m in imports if m.startswith("trainflow"))
    assert ours == ["trainflow._src.datasets", "trainflow.compat.v1"]
    readme = open(os.path.join(os.path.dirname(EXAMPLE), "..", "README.md")).read()
    assert "`from trainflow._src.datasets import load_digits`" in readme
