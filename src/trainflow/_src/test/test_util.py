"""`tf.test`'s helpers: the unittest main, device queries and a TestCase with TF1's
session helpers and array asserts."""
import contextlib
import functools
import importlib.util
import os
import tempfile
import unittest

import numpy as np

from trainflow._src.framework.graph import Graph
from trainflow._src.runtime.session import Session, get_default_session


def main(argv=None):
    """Runs the unittest tests of `__main__`."""
    unittest.main(argv=argv)


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """False: trainflow runs on the CPU."""
    return False


def is_built_with_cuda():
    """False: trainflow is not built with CUDA."""
    return False


def is_built_with_gpu_support():
    """False: trainflow runs on the CPU (TensorFlow's answer for a CPU build)."""
    return False


def is_built_with_rocm():
    """False: trainflow is not built with ROCm."""
    return False


def is_built_with_xla():
    """Whether the XLA backend can run: jax is installed (docs/xla.md)."""
    return importlib.util.find_spec("jax") is not None


def disable_with_predicate(pred, skip_message):
    """A test-method decorator: the test is skipped with `skip_message` when `pred()`."""
    def decorator_disable_with_predicate(func):
        @functools.wraps(func)
        def wrapper_disable_with_predicate(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            else:
                return func(self, *args, **kwargs)
        return wrapper_disable_with_predicate
    return decorator_disable_with_predicate


def with_eager_op_as_function(cls=None, only_as_function=False):
    """A test-class decorator TF keeps for old tests: the class is returned unchanged
    (running eager ops as functions is TF's only mode; graph tests are unaffected)."""
    del only_as_function

    def decorator(cls):
        return cls
    return decorator(cls) if cls is not None else decorator


def test_src_dir_path(relative_path):
    """`relative_path` under the tensorflow directory of the Bazel test's source tree
    ($TEST_SRCDIR/$TEST_WORKSPACE/tensorflow); KeyError outside a Bazel test, as in TF."""
    return os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"],
                        "tensorflow", relative_path)


def gpu_device_name():
    """"" (no GPU)."""
    return ""


def get_temp_dir():
    """A temporary directory for the running test."""
    return tempfile.mkdtemp(prefix="trainflow_test_")


class TestCase(unittest.TestCase):
    """unittest.TestCase with TF1's helpers: sessions on a fresh graph and array asserts."""

    def setUp(self):
        super().setUp()
        self._graph = Graph()
        self._graph_cm = self._graph.as_default()
        self._graph_cm.__enter__()
        self._cached = None

    def tearDown(self):
        if self._cached is not None:
            self._cached.close()
        self._graph_cm.__exit__(None, None, None)
        super().tearDown()

    def get_temp_dir(self):
        return get_temp_dir()

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """A new session on `graph` (default: the test's graph), made the default."""
        sess = Session(graph=graph or self._graph, config=config)
        with sess.as_default(), sess.graph.as_default():
            try:
                yield sess
            finally:
                sess.close()

    test_session = session

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """One session reused across calls in the same test."""
        if self._cached is None:
            self._cached = Session(graph=graph or self._graph, config=config)
        with self._cached.as_default(), self._cached.graph.as_default():
            yield self._cached

    def evaluate(self, tensors):
        sess = get_default_session()
        if sess is None:
            with self.session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol,
                                   err_msg=msg or "")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=msg or "")

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        np.testing.assert_allclose(farray1, farray2, atol=err, rtol=0, err_msg=msg or "")

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        self.assertTrue(abs(f1 - f2) <= err, msg or f"{f1} != {f2} +/- {err}")

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):  # noqa: N802
        self.assertEqual(list(np_array.shape), tf_tensor.get_shape().as_list(), msg)
