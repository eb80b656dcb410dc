"""Runs one graph on the NumPy backend and on the XLA backend and returns both results,
for the tests of the XLA lowerings (import after `pytest.importorskip("jax")`)."""
import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.runtime.backends import xla_backend

xla_backend.load_lowerings()


def config(jit):
    """A ConfigProto with XLA on (ON_2) or off."""
    cfg = tf.ConfigProto()
    if jit:
        cfg.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_2
    return cfg


def segment_kernels(sess):
    """The XLA segment kernels of every plan the session built."""
    for plan in sess._plans.values():
        for k in plan.program._env.values():
            if isinstance(k, xla_backend.SegmentKernel):
                yield k


def fallback_reasons(sess):
    """Why segments ran on NumPy (empty when every traced segment compiled)."""
    return [t.reason for k in segment_kernels(sess) for t in k._traces.values() if t.fallback]


def lowered_types(sess):
    """The op types that ran inside compiled XLA segments."""
    return {op.type for k in segment_kernels(sess) if any(not t.fallback for t in
                                                          k._traces.values())
            for op in k.ops}


def run_both(build, feeds_of, steps=1, check=None, on_host=()):
    """Runs ``build() -> (fetches, init op or None, placeholders)`` `steps` times on
    NumPy and on XLA (a fresh graph each, random seed 1) and returns both lists of
    results. On XLA, no segment may fall back to NumPy and only the op types in
    `on_host` (besides HOST_BY_DESIGN) may run outside segments; then `check(sess)` is
    called on the XLA session."""
    out = []
    for jit in (False, True):
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(1)
            fetches, init, phs = build()
        with tf.Session(graph=g, config=config(jit)) as sess:
            if init is not None:
                sess.run(init)
            vals = [sess.run(fetches, dict(zip(phs, feeds_of(i)))) for i in range(steps)]
            if jit:
                assert not fallback_reasons(sess), fallback_reasons(sess)[0][:400]
                missing = host_op_types(sess) - set(on_host)
                assert not missing, f"ops without an XLA lowering: {sorted(missing)}"
                if check is not None:
                    check(sess)
        out.append(vals)
    return out


def placeholder(value):
    """A placeholder for `value` with an unknown first dimension (nothing folds away)."""
    value = np.asarray(value)
    shape = (None,) + value.shape[1:] if value.ndim else ()
    return tf.placeholder(tf.as_dtype(value.dtype), shape)


# Ops that run on the host by design: variables and their initial values, placeholders
# and constants (folded when the plan is built), and ops with data-dependent shapes.
HOST_BY_DESIGN = {"VariableV2", "Const", "Placeholder", "TruncatedNormal", "RandomUniform",
                  "RandomStandardNormal", "Unique", "NoOp"}


def host_op_types(sess):
    """The op types the session's plans ran on the host (outside XLA segments), less
    HOST_BY_DESIGN: the ops a program uses that have no lowering."""
    types = set()
    for plan in sess._plans.values():
        types.update(op.type for op in plan.ops if op.type != "XlaCluster")
    return types - HOST_BY_DESIGN


def assert_same_observations(got, want):
    """The XLA run's list of observed values equals the NumPy run's to float32 round-off."""
    assert len(got) == len(want)
    for k, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6, err_msg=f"observation {k}")
