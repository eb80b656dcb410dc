"""The ops (names and types, constants aside) that the linalg, einsum, TensorArray,
segment and scan functions add to a graph are TensorFlow 2.21's (TF1 mode with
control flow v2); skipped without TRAINFLOW_TF_PYTHON."""
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

EXPRESSIONS = [
    "tf.norm(x)", "tf.norm(x, ord=1, axis=[0, 1])", "tf.einsum('ij,jk->ik', x, x)",
    "tf.trace(x)", "tf.eye(3)", "tf.eye(2, 3, batch_shape=[2])", "tf.matrix_inverse(x)",
    "tf.matrix_transpose(x)", "tf.linalg.logdet(x)", "tf.linalg.diag(x[0])",
    "tf.linalg.diag_part(x, k=(-1, 1))", "tf.linalg.set_diag(x, x[0])",
    "tf.TensorArray(tf.float32, size=2).write(0, x[0]).write(1, x[1]).stack()",
    "tf.TensorArray(tf.float32, size=2).unstack(x[:2]).read(1)",
    "tf.TensorArray(tf.float32, size=3).unstack(x).gather([0, 2])",
    "tf.setdiff1d([1, 2], [2])[0]", "tf.unsorted_segment_mean(x, [0, 0, 1], 2)",
    "tf.math.unsorted_segment_sqrt_n(x, [0, 0, 1], 2)", "tf.math.cumulative_logsumexp(x)",
    "tf.image.total_variation(x[None, :, :, None])", "tf.nn.max_pool1d(x[None], 2, 1, 'VALID')",
    "tf.parallel_stack([x, x])", "tf.sparse.segment_sum(x, [0, 2], [0, 0])",
    "tf.igamma(x, x)", "tf.bitwise.left_shift([1, 2], [1, 1])", "tf.svd(x, compute_uv=False)",
]

_CODE = r"""
import json, sys
spec = json.loads(sys.stdin.read())
if spec["tf"]:
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.enable_control_flow_v2()
else:
    import trainflow.compat.v1 as tf
out = []
for expr in spec["expressions"]:
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3, 3], name="x")
        eval(expr)
        out.append(sorted([op.name, op.type] for op in g.get_operations()
                          if op.type != "Const"))
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def tf_graphs():
    return run_json(_CODE, spec={"tf": True, "expressions": EXPRESSIONS})


@needs_tf
@pytest.mark.parametrize("i,expr", list(enumerate(EXPRESSIONS)), ids=EXPRESSIONS)
def test_same_ops_as_tensorflow(tf_graphs, i, expr):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3, 3], name="x")  # noqa: F841 - used by expr
        eval(expr)
        ours = sorted([op.name, op.type] for op in g.get_operations() if op.type != "Const")
    assert ours == tf_graphs[i], expr
