"""One script for TensorFlow and trainflow alike: evaluate expressions in TF1 graph mode
and report, for each, the op types it added, its static shape and dtype and its value (a
SparseTensor as its three parts; a list or tuple as its items), so a test compares the two."""
import json
import textwrap

import numpy as np
import pytest

from tf_interop import run_json

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np

    def _value(v):
        v = np.asarray(v)
        if v.dtype.names:  # a quantized dtype: its integers
            v = v.view(v.dtype[0])
        if v.dtype == object or v.dtype.kind in "SU":
            return {"shape": list(v.shape), "dtype": "str",
                    "flat": [x.decode() if isinstance(x, bytes) else str(x)
                             for x in v.reshape(-1)]}
        return {"shape": list(v.shape), "dtype": str(v.dtype),
                "flat": v.astype(np.float64).reshape(-1).tolist()}

    def _static(t, tf):
        if isinstance(t, tf.SparseTensor):
            return ["sparse", t.dtype.name, [_static(p, tf) for p in
                                              (t.indices, t.values, t.dense_shape)]]
        if isinstance(t, (list, tuple)):
            return [_static(p, tf) for p in t]
        return [t.dtype.name, None if t.shape.rank is None else t.shape.as_list()]

    def _run(sess, out, tf):
        if isinstance(out, tf.SparseTensor):
            v = sess.run(out)
            return [_value(v.indices), _value(v.values), _value(v.dense_shape)]
        if isinstance(out, (list, tuple)):
            return [_run(sess, o, tf) for o in out]
        return _value(sess.run(out))

    def evaluate(tf, prelude, expressions):
        results = []
        for expr in expressions:
            g = tf.Graph()
            with g.as_default():
                env = {"tf": tf, "np": np}
                exec(prelude, env)
                before = len(g.get_operations())
                try:
                    out = eval(expr, env)
                except Exception as e:  # noqa: BLE001 - the error is what is compared
                    results.append({"error": type(e).__name__})
                    continue
                ops = sorted({op.type for op in g.get_operations()[before:]} - {"Const"})
                with tf.Session() as sess:
                    try:
                        results.append({"ops": ops, "static": _static(out, tf),
                                        "value": _run(sess, out, tf)})
                    except Exception as e:  # noqa: BLE001
                        results.append({"error": type(e).__name__})
        return results
""")

_TF_MAIN = SCRIPT + textwrap.dedent("""
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    spec = json.load(sys.stdin)
    print(json.dumps(evaluate(tf, spec["prelude"], spec["expressions"])))
""")


def tf_results(prelude, expressions):
    """`evaluate` under TensorFlow."""
    return run_json(_TF_MAIN, spec={"prelude": prelude, "expressions": expressions})


def trainflow_results(prelude, expressions):
    """`evaluate` under trainflow (in this process)."""
    import trainflow.compat.v1 as tf
    env = {}
    exec(SCRIPT, env)  # noqa: S102 - the script above
    return json.loads(json.dumps(env["evaluate"](tf, prelude, expressions)))


def assert_same(ours, theirs, rtol=1e-6, compare_ops=True):
    """Values to float32 round-off, everything else exactly."""
    if "error" in theirs or "error" in ours:
        assert ours.get("error") == theirs.get("error")
        return
    if compare_ops:
        assert ours["ops"] == theirs["ops"]
    assert ours["static"] == theirs["static"]
    _same_value(ours["value"], theirs["value"], rtol)


def _same_value(a, b, rtol):
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same_value(x, y, rtol)
        return
    assert (a["shape"], a["dtype"]) == (b["shape"], b["dtype"])
    if a["dtype"] == "str":
        assert a["flat"] == b["flat"]
    else:
        np.testing.assert_allclose(a["flat"], b["flat"], rtol=rtol, atol=1e-6)


def comparison_test(prelude, expressions, rtol=1e-6, ops_differ=frozenset()):
    """A test, parametrized over `expressions`, that each one's trainflow result is TF's
    (`assert_same`; op types not compared for those in `ops_differ`). Both sides evaluate
    all the expressions once, at the first case; a module binds it to a `test_` name."""
    cache = []

    @pytest.mark.parametrize("i", range(len(expressions)), ids=expressions)
    def test(i):
        if not cache:
            cache.append((trainflow_results(prelude, expressions),
                          tf_results(prelude, expressions)))
        ours, theirs = cache[0]
        assert_same(ours[i], theirs[i], rtol=rtol, compare_ops=expressions[i] not in ops_differ)
    return test
