"""The pooling kernels against live TensorFlow on the edge cases of their window loops:
ties, NaN and -inf cells, stride larger than the window, SAME with odd sizes, explicit
padding (skipped without $TRAINFLOW_TF_PYTHON)."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.ops.nn import conv_kernels
from trainflow._src.ops.nn import pool_kernels as P

from tf_interop import needs_tf, run_json

CASES = [  # x shape, ksize, strides, padding, explicit_paddings
    ((2, 5, 5, 3), (3, 3), (2, 2), "SAME", []),
    ((1, 7, 9, 2), (3, 3), (2, 2), "SAME", []),
    ((2, 7, 6, 2), (2, 2), (3, 3), "VALID", []),
    ((1, 3, 4, 1), (5, 5), (1, 1), "SAME", []),
    ((1, 5, 6, 2), (3, 2), (1, 2), "EXPLICIT", [0, 0, 2, 1, 1, 0, 0, 0]),
]

_TF_CODE = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_nn_ops
tf.disable_v2_behavior()
out = []
for case in json.loads(sys.stdin.read()):
    x, dy, ddx = (np.array(case[k], np.float32) for k in ("x", "dy", "ddx"))
    k, s, pad, explicit = case["ksize"], case["strides"], case["padding"], case["explicit"]
    with tf.Graph().as_default(), tf.Session() as sess:
        y = gen_nn_ops.max_pool(x, k, s, pad, explicit_paddings=explicit)
        res = {"max": y,
               "max_grad": gen_nn_ops.max_pool_grad(x, y, dy, k, s, pad,
                                                    explicit_paddings=explicit)}
        if pad != "EXPLICIT":
            res["gradgrad"] = gen_nn_ops.max_pool_grad_grad(x, y, ddx, k, s, pad)
            res["avg"] = gen_nn_ops.avg_pool(np.nan_to_num(x, nan=0.5, neginf=-1.0), k, s, pad)
            res["avg_grad"] = gen_nn_ops.avg_pool_grad(x.shape, dy, k, s, pad)
            res["argmax_value"], res["argmax"] = gen_nn_ops.max_pool_with_argmax(
                x, k, s, pad, include_batch_in_index=True)
        values = sess.run(res)
    out.append({name: v.tolist() for name, v in values.items()})
print(json.dumps(out))
"""


def _inputs(xs, ksize, strides, padding, explicit, rng):
    x = np.floor(rng.rand(*xs) * 3).astype(np.float32)  # many ties
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, max(1, flat.size // 7), replace=False)] = np.nan
    flat[rng.choice(flat.size, max(1, flat.size // 9), replace=False)] = -np.inf
    attrs = dict(ksize=[1, *ksize, 1], strides=[1, *strides, 1], padding=padding.encode(),
                 data_format=b"NHWC")
    y = P.max_pool_kernel(x, explicit_paddings=explicit, **attrs)
    dy = rng.randn(*y.shape).astype(np.float32)
    ddx = rng.randn(*xs).astype(np.float32)
    return x, y, dy, ddx, attrs


@needs_tf
def test_pool_kernels_match_tensorflow_on_edge_cases():
    rng = np.random.RandomState(3)
    inputs = [_inputs(*case, rng) for case in CASES]
    theirs = run_json(_TF_CODE, spec=[
        {"x": x.tolist(), "dy": dy.tolist(), "ddx": ddx.tolist(), "ksize": [1, *c[1], 1],
         "strides": [1, *c[2], 1], "padding": c[3], "explicit": c[4]}
        for c, (x, _, dy, ddx, _) in zip(CASES, inputs)])
    for case, (x, y, dy, ddx, attrs), tf_out in zip(CASES, inputs, theirs):
        explicit = case[4]
        mine = {"max": y,
                "max_grad": P.max_pool_grad_kernel(x, y, dy, explicit_paddings=explicit,
                                                   **attrs)}
        if not explicit:
            mine["gradgrad"] = P.max_pool_grad_grad_kernel(x, y, ddx, **attrs)
            mine["avg"] = P.avg_pool_kernel(np.nan_to_num(x, nan=0.5, neginf=-1.0), **attrs)
            mine["avg_grad"] = P.avg_pool_grad_kernel(np.array(x.shape), dy, **attrs)
            attrs_no_format = {k: v for k, v in attrs.items() if k != "data_format"}
            mine["argmax_value"], mine["argmax"] = P.max_pool_with_argmax_kernel(
                x, Targmax=dtypes.int64, include_batch_in_index=True, **attrs_no_format)
        for name, value in mine.items():
            expected = np.array(tf_out[name], value.dtype)
            np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-6,
                                       err_msg=f"{case} {name}")


_TF_MAX_CODE = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_nn_ops
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
x = np.array(spec["x"], np.float32)
out = []
with tf.Graph().as_default(), tf.Session() as sess:
    for k, s, pad in spec["cases"]:
        out.append(sess.run(gen_nn_ops.max_pool(x, k, s, pad)).tolist())
print(json.dumps(out))
"""


@needs_tf
def test_max_pool_matches_tensorflow_on_a_batch(monkeypatch):
    """MaxPool's separable passes over a batch cut into several chunks, against TF."""
    monkeypatch.setattr(conv_kernels, "CHUNK_BYTES", 20000)  # two images a chunk
    rng = np.random.RandomState(5)
    x = rng.randn(6, 17, 18, 8).astype(np.float32)
    x[rng.rand(*x.shape) < 0.05] = np.nan
    cases = [([1, 3, 3, 1], [1, 2, 2, 1], "SAME"), ([1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
             ([1, 3, 2, 1], [1, 1, 3, 1], "SAME"), ([1, 4, 1, 1], [1, 3, 1, 1], "VALID")]
    theirs = run_json(_TF_MAX_CODE, spec={"x": np.nan_to_num(x, nan=-9.0).tolist(),
                                          "cases": cases})
    for (k, s, pad), tf_out in zip(cases, theirs):
        # JSON has no NaN: TF sees -9 where x has NaN, which never wins here (no window
        # is all NaN with this seed, and no normal value is below -9).
        mine = P.max_pool_kernel(x, ksize=k, strides=s, padding=pad.encode(),
                                 data_format=b"NHWC")
        np.testing.assert_array_equal(mine, np.array(tf_out, np.float32), err_msg=str(k))
