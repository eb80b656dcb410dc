"""`trainflow ops --check`: the tf.* names a TF1 program uses, read from its source."""
import os
import subprocess
import sys

import trainflow
from trainflow._src.tools import port_check

PROGRAM = '''\
import tensorflow.compat.v1 as tf
from tensorflow.compat import v1 as tf1
import numpy as np
tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, [None, 3])
rt = tf.experimental.DynamicRaggedShape([[1, 2]])
tf.add_to_collection(tf.GraphKeys.LOSSES, tf.reduce_mean(x))
y = tf.compat.v1.layers.dense(x, 2)
z = tf1.contrib.layers.flatten(x) + np.float32(tf.float32.size)
w = tf.placeholder(tf.int32)
'''


def test_uses_finds_the_longest_tf_symbol_of_each_chain():
    assert port_check.uses(PROGRAM) == [
        (4, "tf.disable_v2_behavior"), (5, "tf.float32"), (5, "tf.placeholder"),
        (6, "tf.experimental.DynamicRaggedShape"), (7, "tf.GraphKeys"),
        (7, "tf.add_to_collection"),
        (7, "tf.reduce_mean"), (8, "tf.layers.dense"), (9, "tf.contrib.layers.flatten"),
        (10, "tf.int32")]


def test_check_command(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    src = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))
    proc = subprocess.run([sys.executable, "-m", "trainflow", "ops", "--check", str(path)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=src))
    assert proc.returncode == 1 and proc.stderr == ""
    assert proc.stdout.splitlines() == [
        f"{path}:6: tf.experimental.DynamicRaggedShape is not in trainflow",
        f"{path}:9: tf.contrib.layers.flatten is not in trainflow",
        f"{path}: 10 tf names used, 2 missing"]
