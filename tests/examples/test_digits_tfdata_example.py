"""examples/digits_tfdata.py (a TF1 program reading its data through tf.data) runs,
learns, and its pipelines are TF's dataset ops."""
import importlib.util
import os

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "digits_tfdata.py")


def _module():
    spec = importlib.util.spec_from_file_location("digits_tfdata", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_trains_to_high_test_accuracy(tmp_path, capsys):
    accuracy = _module().main(epochs=3, directory=str(tmp_path))
    assert accuracy > 0.85
    out = capsys.readouterr().out
    assert "test accuracy" in out and "after 135 steps" in out


def test_example_pipelines_are_dataset_ops(tmp_path):
    module = _module()
    train_path, test_path = module.write_data(str(tmp_path))
    tf = module.tf
    with tf.Graph().as_default() as g:
        module.train_input(train_path, 32, 1)
        module.test_input(test_path)
        types = {op.type for op in g.get_operations()}
    assert {"FlatMapDataset", "BatchDatasetV2", "MapDataset", "PrefetchDataset",
            "CSVDatasetV2"} <= types


def test_readme_names_the_example():
    readme = open(os.path.join(os.path.dirname(EXAMPLE), "..", "README.md")).read()
    assert "`examples/digits_tfdata.py` reads its data through `tf.data`" in readme
