"""The XLA segment's per-step path: its trace key, and the float error state of the host
program around it. Skipped when jax is not installed."""
import warnings

import numpy as np
import pytest

import trainflow.compat.v1 as tf

pytest.importorskip("jax")
from trainflow._src.runtime.backends import xla_backend  # noqa: E402
from xla_compare import config as _config  # noqa: E402
from xla_compare import segment_kernels as _segment_kernels  # noqa: E402


@pytest.fixture(autouse=True)
def _switch_from_config_only(monkeypatch):
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)


class _Shaped:
    """A value with an array's shape and dtype that is not an ndarray."""
    shape = (2, 3)
    dtype = np.dtype(np.float64)


@pytest.mark.parametrize("values", [
    (),
    (np.ones(3, np.float32),),
    (np.ones((2, 0), np.int64), np.float32(2.5), np.array(7, np.int32)),
    (_Shaped(), np.ones(1, np.bool_)),
    (1.5, 3, True),                      # Python numbers: no shape attribute
    (np.ones(2, np.float32), 2.0),
])
def test_signature_is_the_shapes_and_dtypes_of_the_values(values):
    want = tuple((np.shape(v), getattr(v, "dtype", type(v))) for v in values)
    assert xla_backend._signature(values) == want
    assert xla_backend._signature(list(values)) == want


def test_float_errors_are_values_on_both_sides_of_a_segment():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        fused = x / 0.0
        with tf.xla.experimental.jit_scope(compile_ops=False):
            host = tf.log(x - 2.0)  # stays on the host (NumPy)
        mixed = host * 2.0
        with tf.Session(config=_config(True)) as sess, warnings.catch_warnings():
            warnings.simplefilter("error")
            assert sess.run(fused, {x: [1.0, -1.0]}).tolist() == [np.inf, -np.inf]
            got = sess.run(mixed, {x: [1.0, 3.0]})
            assert np.isnan(got[0]) and got[1] == pytest.approx(0.0)
            bare = {p.fetches[0]: p.program._bare for p in sess._plans.values()}
            # Only segments: no error state around them; a host op: TF's (inf/nan are values)
            assert bare == {fused: True, mixed: False}


def test_a_step_without_variables_reuses_its_trace_per_signature():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        n = tf.placeholder(tf.int32, [])
        y = x * tf.cast(n, tf.float32) + 1.0
        with tf.Session(config=_config(True)) as sess:
            for _ in range(3):
                assert sess.run(y, {x: [1.0, 2.0], n: 3}).tolist() == [4.0, 7.0]
            kernel, = _segment_kernels(sess)
            assert len(kernel._traces) == 1
            assert sess.run(y, {x: [1.0], n: 2}).tolist() == [3.0]
            assert len(kernel._traces) == 2
            assert not any(t.fallback for t in kernel._traces.values())
