"""tf.make_template against TensorFlow: the variables and ops its calls create (names
and scopes), shared values, create_scope_now_, unique_name_, custom_getter_, bound
kwargs, the properties, and the error for a tf.Variable made after the first call."""
import json
import textwrap

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

PROGRAM = textwrap.dedent("""
    def program(tf):
        out = {}
        with tf.Graph().as_default() as g:
            def dense(x, units=2):
                w = tf.get_variable("w", [3, units], initializer=tf.ones_initializer())
                b = tf.get_variable("b", [units], initializer=tf.constant_initializer(0.5),
                                    trainable=False)
                return tf.matmul(x, w) + b
            t = tf.make_template("layer", dense, units=4)
            x = tf.constant([[1., 2., 3.]])
            y1, y2 = t(x), t(x * 2.)
            with tf.variable_scope("outer"):
                y3 = t(x)
            t2 = tf.make_template("layer", dense)
            y4 = t2(x)
            t3 = tf.make_template("now", dense, create_scope_now_=True)
            with tf.name_scope("inner"):
                y5 = t3(x)
            y6 = t3(x)
            t4 = tf.make_template("named", dense, unique_name_="explicit")
            y7 = t4(x)

            def getter(getter, name, *args, **kwargs):
                return getter(name + "_custom", *args, **kwargs)
            t5 = tf.make_template("cg", dense, custom_getter_=getter)
            y8 = t5(x)
            bad = tf.make_template("bad", lambda: tf.Variable(1., name="v"))
            bad()
            try:
                bad()
                out["error"] = None
            except ValueError as e:
                out["error"] = str(e).split(":")[0]
            out["variables"] = [v.name for v in tf.global_variables()]
            out["outputs"] = [y.name for y in (y1, y2, y3, y4, y5, y6, y7, y8)]
            out["props"] = [t.name, t.variable_scope.name, t.variable_scope_name,
                            [v.name for v in t.trainable_variables],
                            [v.name for v in t.non_trainable_variables],
                            [v.name for v in t.variables], [v.name for v in t2.weights],
                            t3.variable_scope_name, t4.variable_scope_name]
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                out["values"] = [v.tolist() for v in sess.run([y1, y2, y3, y4, y6, y8])]
        return out
""")


@needs_tf
def test_make_template_matches_tf():
    theirs = run_json(PROGRAM + textwrap.dedent("""
        import json
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
        print(json.dumps(program(tf)))
    """))
    env = {}
    exec(PROGRAM, env)  # noqa: S102 - the program above
    ours = json.loads(json.dumps(env["program"](tf)))
    assert ours == theirs


def test_template_before_its_first_call_has_no_variables():
    with tf.Graph().as_default():
        t = tf.make_template("t", lambda: tf.get_variable("v", []))
        assert (t.variable_scope, t.variable_scope_name, t.variables) == (None, None, [])
        v = t()
        assert t() is v and t.trainable_variables == [v] and t.var_scope is t.variable_scope
