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
