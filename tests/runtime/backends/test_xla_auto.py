"""TRAINFLOW_XLA_AUTO: XLA chosen by the default. Steps run on NumPy (bit for bit) while
a segment compiles in the background, the switch comes between steps, each segment keeps
the faster backend, convolutions on a CPU stay on NumPy, TF's knobs still force XLA on or
off, and compiled programs persist across processes."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.runtime.backends import xla_auto, xla_switch

_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src")


@pytest.fixture
def auto(monkeypatch):
    monkeypatch.setenv("TF_XLA_FLAGS", "")
    monkeypatch.setenv(xla_switch.AUTO_ENV, "1")
    assert xla_switch.load_backend() is not None


def _mlp(seed=1):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, [None, 20])
        y = tf.placeholder(tf.int64, [None])
        h = tf.layers.dense(x, 32, tf.nn.relu)
        loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(h, 5))
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(16, 20).astype(np.float32), y: rng.randint(0, 5, 16)}
    return g, init, train, loss, feed


def _segments(sess):
    """The segment kernels of the session's plans."""
    return [plan.program._env[f"k{k}"] for plan in sess._plans.values()
            for k, op in enumerate(plan.ops) if op.type == "XlaCluster"]


def _losses(n, config=None, until_chosen=False):
    g, init, train, loss, feed = _mlp()
    out, chosen_at = [], None
    with tf.Session(graph=g, config=config) as s:
        s.run(init)
        deadline = time.time() + 180
        while len(out) < n or (until_chosen and chosen_at is None and time.time() < deadline):
            out.append(s.run([train, loss], feed)[1])
            kernels = _segments(s)
            states = [st for k in kernels if k.auto for st in k.auto._states.values()]
            if chosen_at is None and states and all(st.choice for st in states):
                chosen_at = len(out)
            if chosen_at is None and until_chosen:
                time.sleep(0.01)  # leave the compiling thread some time
        return np.array(out), chosen_at, s._context.xla, kernels


def test_numpy_until_the_switch_then_equal_to_round_off(auto, monkeypatch):
    want, _, _, _ = _losses(60, tf.ConfigProto(graph_options=tf.GraphOptions(
        optimizer_options=tf.OptimizerOptions(global_jit_level=tf.OptimizerOptions.OFF))))
    got, chosen_at, xla, kernels = _losses(60, until_chosen=True)
    assert xla is xla_switch.AUTO and chosen_at is not None and kernels
    states = [st for k in kernels for st in k.auto._states.values()]
    assert {st.choice for st in states} <= {"xla", "numpy"}
    # The first two steps (the second starts the compile) ran on NumPy: the same bits.
    np.testing.assert_array_equal(got[:2], want[:2])
    np.testing.assert_allclose(got[:60], want, rtol=2e-5, atol=1e-6)


def test_trial_times_both_backends_and_keeps_the_faster(auto):
    _, chosen_at, _, kernels = _losses(5, until_chosen=True)
    assert chosen_at is not None
    for k in kernels:
        for st in k.auto._states.values():
            assert len(st.times["xla"]) == len(st.times["numpy"]) == xla_auto.TRIAL_STEPS + 1
            fast = min(st.times["xla"][1:]) < min(st.times["numpy"][1:])
            assert st.choice == ("xla" if fast else "numpy")


def test_a_signature_run_once_is_not_compiled(auto):
    g, init, _, loss, feed = _mlp()
    with tf.Session(graph=g) as s:
        s.run(init)
        s.run(loss, feed)
        time.sleep(0.2)
        for k in _segments(s):
            assert all(st.compiled is None and st.calls == 1 for st in k.auto._states.values())


def test_a_step_with_a_convolution_keeps_numpy_on_cpu(auto):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 8, 8, 3])
        w = tf.Variable(tf.ones([3, 3, 3, 4]) * 0.1)
        loss = tf.reduce_sum(tf.layers.dense(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), 3) ** 2)
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as s:
        s.run(init)
        for _ in range(4):
            s.run(train, {x: np.ones([2, 8, 8, 3], np.float32)})
        plans = {tuple(k for k in key[0]): p for key, p in s._plans.items()}
        step = plans[(train,)]
        # No segment at all (the dense layer and Adam's updates too): NumPy's kernels.
        assert not any(op.type == "XlaCluster" for op in step.ops)
        assert step.provisional is None
        assert _segments(s)  # the initializer's plan has one


@pytest.mark.parametrize("flags, level, want", [
    ("", tf.OptimizerOptions.OFF, None),
    ("--tf_xla_auto_jit=-1", None, None),
    ("", tf.OptimizerOptions.ON_1, "module"),
    ("--tf_xla_auto_jit=2", None, "module"),
    ("", None, "auto"),
    ("", tf.OptimizerOptions.DEFAULT, "auto"),
])
def test_tf_knobs_still_force_xla_on_or_off(auto, monkeypatch, flags, level, want):
    monkeypatch.setenv("TF_XLA_FLAGS", flags)
    cfg = None
    if level is not None:
        cfg = tf.ConfigProto()
        cfg.graph_options.optimizer_options.global_jit_level = level
    got = xla_switch.backend_for_session(cfg)
    assert {None: None, "module": xla_switch.load_backend(),
            "auto": xla_switch.AUTO}[want] is got


def test_off_without_the_environment_switch(monkeypatch):
    monkeypatch.setenv("TF_XLA_FLAGS", "")
    monkeypatch.delenv(xla_switch.AUTO_ENV, raising=False)
    assert xla_switch.backend_for_session(None) is None
    monkeypatch.setenv(xla_switch.AUTO_ENV, "0")
    assert xla_switch.backend_for_session(None) is None


def _run_python(code, env_extra):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(_SRC), TF_XLA_FLAGS="", **env_extra)
    env.pop("TRAINFLOW_XLA", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


_SHORT_AND_CONV = """
import sys, time, numpy as np, trainflow.compat.v1 as tf
x = tf.placeholder(tf.float32, [4, 16, 16, 3])
w = tf.Variable(tf.ones([3, 3, 3, 8]) * 0.1)
train = tf.train.GradientDescentOptimizer(0.01).minimize(
    tf.reduce_sum(tf.nn.conv2d(x, w, [1, 1, 1, 1], 'SAME') ** 2))
v = tf.Variable(1.0)
inc = tf.assign_add(v, 1.0)
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    for _ in range(20):
        s.run(inc)
    print('jax' in sys.modules)
    xb = np.ones([4, 16, 16, 3], np.float32)
    start = time.time()
    while time.time() - start < 2 * s._context.xla.START_AFTER_S:
        s.run(train, {x: xb})
    print('jax' in sys.modules, s._context.xla._spent < 0.5)
"""


def test_jax_loads_only_for_long_programs_that_may_gain():
    assert _run_python(_SHORT_AND_CONV, {xla_switch.AUTO_ENV: "1"}) == ["False", "False True"]


_LONG_MLP = """
import sys, time, numpy as np, trainflow.compat.v1 as tf
from trainflow._src.runtime.backends import xla_switch
xla_switch.Auto.START_AFTER_S = 0.05
import jax  # (only to count the compiles; the session loads it itself)
counts = {}
jax.monitoring.register_event_listener(
    lambda e, **kw: counts.__setitem__(e.split('/')[-1], counts.get(e.split('/')[-1], 0) + 1))
x = tf.placeholder(tf.float32, [None, 20])
loss = tf.reduce_mean(tf.layers.dense(x, 8) ** 2)
train = tf.train.AdamOptimizer(0.01).minimize(loss)
xb = np.ones([8, 20], np.float32)
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    deadline = time.time() + 120
    while time.time() < deadline:
        s.run(train, {x: xb})
        states = [st for p in s._plans.values() for k, op in enumerate(p.ops)
                  if op.type == 'XlaCluster'
                  for st in p.program._env['k%d' % k].auto._states.values()]
        if states and all(st.choice for st in states):
            break
        time.sleep(0.005)
    print(sorted({st.choice for st in states}))
print(counts.get('compile_requests_use_cache', 0) - counts.get('cache_hits', 0))
"""


def test_compiled_programs_persist_across_processes(tmp_path):
    env = {xla_switch.AUTO_ENV: "1", "TRAINFLOW_XLA_CACHE_DIR": str(tmp_path)}
    first = _run_python(_LONG_MLP, env)
    assert first[0] in ("['numpy']", "['xla']") and int(first[1]) > 0
    assert os.listdir(tmp_path)
    second = _run_python(_LONG_MLP, env)
    assert second[0] in ("['numpy']", "['xla']") and second[1] == "0"


@pytest.mark.parametrize("env, want", [
    ({"TRAINFLOW_XLA_CACHE_DIR": "/c"}, "/c"),
    ({"TRAINFLOW_XLA_CACHE_DIR": ""}, None),
    ({"XDG_CACHE_HOME": "/x"}, os.path.join("/x", "trainflow", "xla")),
    ({"HOME": "/h"}, os.path.join("/h", ".cache", "trainflow", "xla")),
])
def test_cache_folder(monkeypatch, env, want):
    from trainflow._src.runtime import process_settings
    for name in ("TRAINFLOW_XLA_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert process_settings.xla_cache_dir() == want
