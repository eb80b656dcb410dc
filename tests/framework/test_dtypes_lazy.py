"""ml_dtypes (about a second to import) loads only when bfloat16 is first touched, and
every dtype answer stays what it was with ml_dtypes imported up front. Each case runs in
a fresh interpreter, since this test process has long imported ml_dtypes."""
import os
import subprocess
import sys

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "src")

_HEAVY = "sorted(m for m in ('ml_dtypes', 'jax', 'google.protobuf', 'trainflow.train') " \
         "if m in sys.modules)"


def _run(code):
    out = subprocess.run([sys.executable, "-c", "import sys\n" + code], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=SRC))
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


def test_import_loads_neither_ml_dtypes_nor_jax_nor_tf_train():
    assert _run(f"import trainflow.compat.v1 as tf\nprint({_HEAVY})") == ["[]"]


def test_float32_graph_and_step_stay_without_ml_dtypes():
    code = """import numpy as np
import trainflow.compat.v1 as tf
x = tf.placeholder(tf.float32, [None, 3])
w = tf.Variable(tf.ones([3, 2]))
y = tf.reduce_max(tf.matmul(x, w), axis=1) + tf.math.unsorted_segment_max(
    tf.constant([1., 2.]), [0, 0], 2)[0]
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    print(s.run(y, {x: np.ones([2, 3], np.float32)}).tolist())
print(tf.float32.min == np.finfo(np.float32).min, tf.as_dtype(np.float16).name)
print('ml_dtypes' in sys.modules)
"""
    assert _run(code) == ["[5.0, 5.0]", "True float16", "False"]


@pytest.mark.parametrize("touch, expected", [
    ("tf.bfloat16.as_numpy_dtype.__name__", "bfloat16"),
    ("tf.bfloat16.size", "2"),
    ("tf.bfloat16.max", "3.38953e+38"),
    ("tf.bfloat16.min", "-3.38953e+38"),
    ("tf.as_dtype(tf.bfloat16.as_numpy_dtype).name", "bfloat16"),
    ("tf.as_dtype(np.dtype(__import__('ml_dtypes').bfloat16)).name", "bfloat16"),
    ("tf.as_dtype(__import__('ml_dtypes').bfloat16) == tf.bfloat16", "True"),
    ("tf.bfloat16 == np.dtype(__import__('ml_dtypes').bfloat16)", "True"),
    ("tf.Session().run(tf.cast(tf.constant([1.5, 2.25]), tf.bfloat16)).dtype.name",
     "bfloat16"),
    ("tf.constant(np.ones(2, __import__('ml_dtypes').bfloat16)).dtype.name", "bfloat16"),
    ("tf.Session().run(tf.reduce_sum(tf.constant([1., 2.], tf.bfloat16))).item()", "3.0"),
    ("tf.dtypes.experimental.int4.max", "7"),
    ("tf.dtypes.experimental.float8_e4m3fn.max", "448"),
    ("tf.dtypes.experimental.float8_e5m2.as_numpy_dtype.__name__", "float8_e5m2"),
    ("tf.as_dtype(np.dtype(__import__('ml_dtypes').uint2)).name", "uint2"),
    ("tf.as_dtype(np.dtype(__import__('ml_dtypes').float8_e5m2fnuz)).name", "float8_e5m2fnuz"),
    ("tf.Session().run(tf.cast(tf.constant([1.7]), tf.dtypes.experimental.float8_e5m2))"
     ".astype(float).tolist()", "[1.75]"),
])
def test_bfloat16_works_from_a_cold_start(touch, expected):
    code = f"import numpy as np\nimport trainflow.compat.v1 as tf\nprint({touch})"
    assert _run(code) == [expected]


def test_unknown_numpy_dtype_is_still_a_type_error():
    code = """import numpy as np
import trainflow.compat.v1 as tf
for v in (np.dtype('datetime64[s]'), np.dtype([('a', np.int8), ('b', np.int8)])):
    try:
        tf.as_dtype(v)
    except TypeError as e:
        print(str(e).startswith('Cannot convert value'))
print('ml_dtypes' in sys.modules)
"""
    assert _run(code) == ["True", "True", "False"]
