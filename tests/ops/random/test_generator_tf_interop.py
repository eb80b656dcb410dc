"""tf.random.Generator in graph mode against TensorFlow 2.21: the state variable and its
updates (RngReadAndSkip skips 256 counter steps per value), the values of every sampler
(TF's Philox numbers through the stateless V2 ops), create_rng_state, from_key_counter,
names and op types; and the Generator API's errors."""
import json
import textwrap

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tf_interop import needs_tf, run_json

PROGRAM = textwrap.dedent("""
    import json
    import numpy as np

    def program(tf):
        out = {}
        g = tf.random.Generator.from_seed(1234)
        draws = {"u": g.uniform([5]), "u2": g.uniform([2, 3], minval=-1.0, maxval=3.0,
                                                           dtype=tf.float64),
                 "n": g.normal([3], mean=1.0, stddev=2.0), "t": g.truncated_normal([4]),
                 "i": g.uniform([3], 0, 10, dtype=tf.int32),
                 "i64": g.uniform([2], -5, 5, dtype=tf.int64),
                 "fi": g.uniform_full_int([2], tf.int64),
                 "fu": g.uniform([3], dtype=tf.int32, minval=None, maxval=None),
                 "ms": g.make_seeds(2), "sk": g.skip(7), "n0": g.normal([])}
        out["names"] = {k: v.name for k, v in sorted(draws.items())}
        out["state_name"] = g.state.name
        out["types"] = sorted({op.type for op in tf.get_default_graph().get_operations()})
        s0 = tf.random.create_rng_state(2**70 + 5, 1)
        s1 = tf.random.create_rng_state([3, 4], "philox")
        s2 = tf.random.create_rng_state(2**64 - 1, tf.random.experimental.Algorithm.PHILOX)
        g2 = tf.random.Generator.from_key_counter(5, [1, 2], "philox")
        g3 = tf.random.Generator.from_seed(2**64 - 1)
        g4 = tf.random.Generator.from_state([1, 2, 3], alg="auto_select")
        g5 = tf.random.Generator.from_non_deterministic_state()
        out["static"] = [s0.shape.as_list(), g5.state.shape.as_list(), g4.algorithm]
        rows = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rows.append(sess.run([s0, s1, s2, g2.state.read_value(), g3.state.read_value(),
                                  g4.state.read_value()]))
            for k in sorted(draws):
                rows.append([sess.run(draws[k]), sess.run(g.state.read_value())])
            rows.append([sess.run(draws["u"]), sess.run(g.state.read_value())])
            rows.append(sess.run([g2.normal([3]), g3.uniform([2]), g4.uniform([2])]))
            rows.append(sess.run(g2.state.read_value()))
        out["values"] = json.loads(json.dumps(rows, default=lambda a: np.asarray(a).tolist()))
        return out
""")

TF_MAIN = PROGRAM + textwrap.dedent("""
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    print(json.dumps(program(tf)))
""")


@pytest.fixture(scope="module")
def both():
    env = {}
    exec(PROGRAM, env)  # noqa: S102 - the program above
    with tf.Graph().as_default():
        ours = json.loads(json.dumps(env["program"](tf)))
    return ours, run_json(TF_MAIN)


def _close(a, b):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
    elif isinstance(a, float) or isinstance(b, float):
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)
    else:
        assert a == b


@needs_tf
@pytest.mark.parametrize("part", ["names", "state_name", "types", "static", "values"])
def test_matches_tf(both, part):
    ours, theirs = both
    _close(ours[part], theirs[part])


def test_generators_of_one_seed_agree_and_states_advance():
    with tf.Graph().as_default():
        a = tf.random.Generator.from_seed(7)
        b = tf.random.Generator.from_seed(7)
        ua, ub = a.normal([4]), b.normal([4])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first, second = sess.run(ua), sess.run(ua)
            np.testing.assert_array_equal(first, sess.run(ub))
            assert not np.array_equal(first, second)
            assert sess.run(a.state.read_value()).tolist() == [7 + 2 * 4 * 256, 0, 0]
            split = a.split(2)  # their initializers draw keys from `a`
            sess.run([g.state.initializer for g in split])
            keys = [sess.run(g.state.read_value()) for g in split]
            assert [k[:2].tolist() for k in keys] == [[0, 0], [0, 0]] and keys[0][2] != keys[1][2]
            sess.run(a.reset_from_seed(7))
            sess.run(b.reset_from_key_counter(0, [7, 0]))  # the state [7, 0, 0]
            np.testing.assert_array_equal(sess.run(ua), sess.run(ub))


def test_global_generator_and_errors():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_seed(3)
        tf.random.set_global_generator(g)
        assert tf.random.get_global_generator() is g
        assert tf.random.experimental.get_global_generator() is g
        with pytest.raises(ValueError, match="minval and maxval must be both"):
            g.uniform([2], minval=0, dtype=tf.int32)
        with pytest.raises(ValueError, match="unsupported value"):
            tf.random.create_rng_state(1, "mt19937")
        with pytest.raises(ValueError):
            tf.random.Generator.from_state([1, 2], alg="philox")
        tf.random.set_global_generator(None)
        fresh = tf.random.get_global_generator()
        assert fresh is not g and fresh.algorithm == 1
        tf.random.set_global_generator(None)
