"""tf.GradientTape (graph mode), tf.grad_pass_through and tf.recompute_grad against
TensorFlow 2.21: gradients, jacobians, unwatched and unconnected sources, errors."""
from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
x = tf.constant(3.)
xs = tf.constant([1., 2., 3.])
v = tf.Variable(2., use_resource=True)
u = tf.constant(5.)
def taped(fn, watch=(), **kw):
    tape = tf.GradientTape(**kw)
    with tape:
        for w in watch:
            tape.watch(w)
        out = fn()
    return tape, out
def grad(fn, sources, watch=(x,), **kw):
    tape, out = taped(fn, watch)
    return tape.gradient(out, sources, **kw)
"""

EXPRESSIONS = [
    "grad(lambda: x * x, x)", "grad(lambda: x * x * u, [x, u])",
    "grad(lambda: x * x * u, [x, u], watch=(x, u))",
    "grad(lambda: x * x, x, watch=())", "grad(lambda: x * 2., u)",
    "grad(lambda: x * 2., u, unconnected_gradients='zero')",
    "grad(lambda: x * x, x, output_gradients=tf.constant(3.))",
    "grad(lambda: [x * x, x * 4.], x)", "grad(lambda: {'a': x * x}, {'k': x})",
    "grad(lambda: tf.reduce_sum(xs * xs), xs, watch=(xs,))",
    "grad(lambda: tf.sin(x) * tf.exp(x), x)",
    "grad(lambda: tf.square(tf.square(x)), x)",
    "grad(lambda: tf.reduce_sum(tf.gather(xs, [0, 0, 2])), xs, watch=(xs,))",
    "grad(lambda: tf.cast(x, tf.int32), x)",
    "taped(lambda: tf.reduce_sum(xs * xs), (xs,))[0].jacobian(xs * 1., xs)",
    "(lambda t: t[0].jacobian(t[1], xs))(taped(lambda: xs * xs, (xs,)))",
    "(lambda t: t[0].jacobian(t[1], [xs, x]))(taped(lambda: xs * xs * x, (xs, x)))",
    "(lambda t: t[0].batch_jacobian(t[1], xs2))(taped(lambda: xs2 * xs2 * tf.constant("
    "[[1., 2.]]), (xs2,))) if (xs2 := tf.reshape(xs, [3, 1])) is not None else 0",
    "(lambda t: [t[0].gradient(t[1], x), t[0].gradient(t[1] * 2., x)])(taped(lambda: x * x,"
    " (x,)))",
    "(lambda t: [t[0].gradient(t[1], x), t[0].gradient(t[1], x)])(taped(lambda: x * x, (x,),"
    " persistent=True))",
    "taped(lambda: x, (1.,))", "taped(lambda: x, ('a',))",
    "tf.gradients(tf.grad_pass_through(tf.round)(x * 1.7), x)",
    "tf.grad_pass_through(tf.round)(x * 1.7)",
    "tf.gradients(tf.grad_pass_through(lambda a, b: a * b)(x, u), [x, u])",
    "tf.gradients(tf.recompute_grad(lambda a: tf.sin(a) * a)(x), x)",
    "tf.recompute_grad(lambda a: tf.sin(a) * a)(x)",
    "tf.gradients(tf.recompute_grad(lambda a, b: tf.reduce_sum(a * b))(xs, x), [xs, x])",
]

# The tape's gradient ops (TF builds them from the tape, trainflow with tf.gradients)
# differ in helper op types; recompute_grad differs in its identities.
OPS_DIFFER = frozenset(e for e in EXPRESSIONS if "grad(" in e or "taped" in e
                       or "recompute" in e or "pass_through" in e)

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS, rtol=1e-5,
                                           ops_differ=OPS_DIFFER))
