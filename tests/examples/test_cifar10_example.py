"""examples/cifar10: the CIFAR-10-style trainer (queues, distortions, exponential decay,
moving averages, hooks, automatic checkpoints) and its evaluator (moving averages
restored through variables_to_restore) run unchanged and learn."""
import importlib.util
import os
import sys

import trainflow.compat.v1 as tf

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                    "cifar10")


def _load(name):
    sys.path.insert(0, HERE)
    try:
        spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(HERE)


def test_trainer_and_evaluator(tmp_path, capsys):
    data_dir, train_dir = str(tmp_path / "data"), str(tmp_path / "train")
    train = _load("cifar10_train")
    train.train(data_dir, train_dir, max_steps=40, batch_size=32, log_frequency=20)
    out = capsys.readouterr().out
    assert "step 0, loss = " in out and "step 20, loss = " in out
    assert tf.train.latest_checkpoint(train_dir).endswith("model.ckpt-40")
    reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(train_dir))
    names = reader.get_variable_to_shape_map()
    assert "conv1/weights/ExponentialMovingAverage" in names
    assert "cross_entropy/avg" in names
    evaluate = _load("cifar10_eval")
    precision = evaluate.evaluate(data_dir, train_dir, str(tmp_path / "eval"),
                                  num_examples=200, batch_size=50)
    assert "precision @ 1 = " in capsys.readouterr().out
    assert precision > 0.3  # ten classes: chance is 0.1
