"""TensorFlow's JIT knobs switch the XLA backend on per session or for every session;
off by default; jax stays out of `import trainflow`; without jax, one warning and NumPy."""
import os
import subprocess
import sys

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.runtime.backends import xla_switch

_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src")


def _config(level):
    cfg = tf.ConfigProto()
    cfg.graph_options.optimizer_options.global_jit_level = level
    return cfg


@pytest.mark.parametrize("env, level, want", [
    ("", None, 0), ("", tf.OptimizerOptions.ON_1, 1), ("", tf.OptimizerOptions.ON_2, 2),
    ("", tf.OptimizerOptions.OFF, -1), ("", tf.OptimizerOptions.DEFAULT, 0),
    ("--tf_xla_auto_jit=2", None, 2), ("--tf_xla_auto_jit=1", tf.OptimizerOptions.OFF, 1),
    ("--tf_xla_auto_jit=-1", tf.OptimizerOptions.ON_2, -1),
    ("--tf_xla_auto_jit=0", tf.OptimizerOptions.ON_1, 1),
    ("--tf_xla_cpu_global_jit --tf_xla_auto_jit=single-gpu(2)", None, 2),
    ("--tf_xla_auto_jit=bogus", None, 0),
])
def test_jit_level(monkeypatch, env, level, want):
    monkeypatch.setenv("TF_XLA_FLAGS", env)
    assert xla_switch.jit_level(None if level is None else _config(level)) == want


def _run_python(code, env_extra):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(_SRC), **env_extra)
    env.pop("TRAINFLOW_XLA", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)


def test_import_trainflow_does_not_import_jax():
    out = _run_python("import sys, trainflow.compat.v1 as tf\n"
                      "with tf.Session() as s: s.run(tf.constant(1.0) * 2)\n"
                      "print('jax' in sys.modules)", {"TF_XLA_FLAGS": ""})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_without_jax_one_warning_and_numpy():
    code = ("import sys; sys.modules['jax'] = None\n"
            "import trainflow.compat.v1 as tf\n"
            "x = tf.constant([1.0, 2.0]) * 3\n"
            "for _ in range(3):\n"
            "    with tf.Session() as s: print(s.run(x).tolist(), s._context.xla)\n")
    out = _run_python(code, {"TF_XLA_FLAGS": "--tf_xla_auto_jit=2"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["[3.0, 6.0] None"] * 3
    assert out.stderr.count("jax is not installed") == 1


def test_off_by_default_is_the_numpy_path(monkeypatch):
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)
    with tf.Graph().as_default():
        y = tf.constant(2.0) * tf.placeholder_with_default(3.0, [])
        for cfg in (None, _config(tf.OptimizerOptions.OFF)):
            with tf.Session(config=cfg) as sess:
                assert sess._context.xla is None
                assert sess.run(y) == 6.0
                plan = list(sess._plans.values())[0]
                assert all(type(op).__name__ == "Operation" for op in plan.ops)


def test_env_var_turns_it_on_for_every_session(monkeypatch):
    pytest.importorskip("jax")
    monkeypatch.setenv("TF_XLA_FLAGS", "--tf_xla_auto_jit=2")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = tf.nn.relu(x) * 2.0
        with tf.Session() as sess:
            assert sess._context.xla is not None
            assert sess.run(y, {x: [-1.0, 2.0]}).tolist() == [0.0, 4.0]
            plan = list(sess._plans.values())[0]
            assert "XlaCluster" in [op.type for op in plan.ops]


def test_jit_scope_is_accepted_and_restores_attrs():
    with tf.Graph().as_default() as g:
        with tf.xla.experimental.jit_scope():
            assert g._attr_scope_map["_XlaCompile"] is True
            with tf.xla.experimental.jit_scope(compile_ops=False):
                assert g._attr_scope_map["_XlaCompile"] is False
                y = tf.constant(1.0) + 1.0
            assert g._attr_scope_map["_XlaCompile"] is True
        assert "_XlaCompile" not in g._attr_scope_map
        with tf.Session() as sess:
            assert sess.run(y) == 2.0
        with pytest.raises(TypeError):
            with tf.xla.experimental.jit_scope(compile_ops="yes"):
                pass
