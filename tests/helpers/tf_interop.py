"""Running code under TensorFlow's python ($TRAINFLOW_TF_PYTHON; the interop tests skip
without it), or another python, in a subprocess."""
import atexit
import json
import os
import subprocess

import pytest

from tf_fork_server import ForkServerClient

TF_PYTHON = os.environ.get("TRAINFLOW_TF_PYTHON")
TF_SKIP_REASON = "TRAINFLOW_TF_PYTHON is not set"
needs_tf = pytest.mark.skipif(not TF_PYTHON, reason=TF_SKIP_REASON)
# A python with TensorFlow 2.15 and tensorflow-estimator 2.15 (the last TensorFlow with
# tf.estimator; Python <= 3.11), for the Estimator model_dir tests.
TF_ESTIMATOR_PYTHON = os.environ.get("TRAINFLOW_TF_ESTIMATOR_PYTHON")
TF_ESTIMATOR_SKIP_REASON = "TRAINFLOW_TF_ESTIMATOR_PYTHON is not set"
needs_tf_estimator = pytest.mark.skipif(not TF_ESTIMATOR_PYTHON,
                                        reason=TF_ESTIMATOR_SKIP_REASON)
# TensorFlow quiet, on the CPU, and without oneDNN's differently rounded kernels.
TF_ENV = {"TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0", "CUDA_VISIBLE_DEVICES": ""}


# TensorFlow's python runs the scripts in children of one fork server, which imports
# TensorFlow once (TRAINFLOW_TF_FORK=0 starts a fresh python for every script instead).
_FORK_SERVER = (ForkServerClient(TF_PYTHON, TF_ENV)
                if TF_PYTHON and os.environ.get("TRAINFLOW_TF_FORK", "1") != "0" else None)
if _FORK_SERVER is not None:
    atexit.register(_FORK_SERVER.close)


def run_python(code, *args, python=None, spec=None, timeout=300):
    """Runs `python -c code args...` (TensorFlow's python unless named) with TF_ENV and
    `spec`, if given, as JSON on stdin; asserts it exits 0 and returns its stdout."""
    stdin = None if spec is None else json.dumps(spec)
    result = None
    if _FORK_SERVER is not None and python in (None, TF_PYTHON):
        result = _FORK_SERVER.run(code, args, stdin, timeout)
    if result is None:
        proc = subprocess.run([python or TF_PYTHON, "-c", code, *args], input=stdin,
                              capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, **TF_ENV))
        result = proc.returncode, proc.stdout, proc.stderr
    returncode, stdout, stderr = result
    assert returncode == 0, stderr[-3000:]
    return stdout


def run_json(code, *args, **kwargs):
    """`run_python`, then the JSON value on the last line it printed."""
    return json.loads(run_python(code, *args, **kwargs).strip().splitlines()[-1])


_RUN_GRAPH_DEF = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
gd = tf.GraphDef()
gd.ParseFromString(bytes.fromhex(spec["graph_def"]))
with tf.Graph().as_default():
    tf.import_graph_def(gd, name="")
    with tf.Session() as sess:
        out = [[v.tolist() for v in sess.run(spec["fetches"], f)] for f in spec["feeds"]]
print(json.dumps(out))
"""


def run_graph_def(graph_def, fetches, feeds):
    """TensorFlow imports `graph_def` and runs `fetches` (tensor names) once per feed dict
    (names to values) in `feeds`: a list of lists of values (as lists)."""
    return run_json(_RUN_GRAPH_DEF, spec={"graph_def": graph_def.SerializeToString().hex(),
                                          "fetches": fetches, "feeds": feeds})


# `attrs_of` as source, so that scripts run under TensorFlow's python define it too.
ATTRS_OF_CODE = r'''
def attrs_of(node):
    """A NodeDef's attrs as one-line text protos, leaving out Const values and `_` attrs."""
    from google.protobuf import text_format
    return {k: text_format.MessageToString(v, as_one_line=True)
            for k, v in sorted(node.attr.items()) if k != "value" and not k.startswith("_")}
'''
exec(ATTRS_OF_CODE)


_EVAL_EXPRESSIONS = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
if spec["control_flow_v2"]:
    tf.enable_control_flow_v2()
out = []
for expr in spec["expressions"]:
    with tf.Graph().as_default():
        env = {"tf": tf}
        exec(spec["prelude"], env)
        t = eval(expr, env)
        with tf.Session() as sess:
            value = sess.run(t).tolist()
        out.append([t.shape.as_list(), value] if spec["static_shapes"] else value)
print(json.dumps(out))
"""


def tf_expression_values(prelude, expressions, control_flow_v2=False, static_shapes=False):
    """TensorFlow's value (as lists) of each expression: Python text evaluated, each in a
    new graph, with `tf` bound after running `prelude`; with static_shapes, [static shape,
    value] pairs. control_flow_v2 turns on TF's control flow v2 first."""
    return run_json(_EVAL_EXPRESSIONS, spec={
        "prelude": prelude, "expressions": list(expressions),
        "control_flow_v2": control_flow_v2, "static_shapes": static_shapes})


def our_expression_value(prelude, expr, static_shape=False):
    """trainflow's value of `expr`, built as tf_expression_values builds it; with
    static_shape, (static shape as a list, value)."""
    import trainflow.compat.v1 as tf
    with tf.Graph().as_default():
        env = {"tf": tf}
        exec(prelude, env)
        t = eval(expr, env)
        with tf.Session() as sess:
            value = sess.run(t)
    return (t.shape.as_list(), value) if static_shape else value


def assert_same_value(got, want, expr, rtol, atol):
    """`got` (ours) has the shape of `want` (TensorFlow's, as lists) and its values:
    integers exactly, floats to rtol/atol."""
    import numpy as np
    got = np.asarray(got)
    want = np.asarray(want, dtype=got.dtype)
    assert got.shape == want.shape, expr
    if got.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want, err_msg=expr)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=expr)


def expression_value_tests(prelude, expressions, rtol, atol, control_flow_v2=False):
    """The module fixture `tf_values` and the test `test_same_values_as_tensorflow` (one case
    per expression) that check trainflow gives TensorFlow's values for `expressions`;
    a test module binds both names: `tf_values, test_same_values_as_tensorflow = ...`."""

    @pytest.fixture(scope="module")
    def tf_values():
        return tf_expression_values(prelude, expressions, control_flow_v2=control_flow_v2)

    @needs_tf
    @pytest.mark.parametrize("i,expr", list(enumerate(expressions)), ids=list(expressions))
    def test_same_values_as_tensorflow(tf_values, i, expr):
        assert_same_value(our_expression_value(prelude, expr), tf_values[i], expr, rtol, atol)

    return tf_values, test_same_values_as_tensorflow
