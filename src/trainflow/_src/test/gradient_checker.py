"""Finite-difference checks of symbolic gradients (`tf.test.compute_gradient[_error]`).

The Jacobian of y with respect to x is computed twice: from `tf.gradients` (one
backprop per element of y, fed a one-hot `dy`) and by central differences (two
forward runs per element of x). Both are laid out as (size of x, size of y).
Complex tensors count as twice as many reals (real and imaginary parts
interleaved), so a complex gradient is checked as the real map it is; this
matches TensorFlow's convention that the gradient of a real loss L with respect
to z is dL/d(re z) + i dL/d(im z).
"""
import numpy as np

from trainflow._src.framework import constant_op
from trainflow._src.gradients.gradients_impl import gradients
from trainflow._src.runtime.session import get_default_session


def _session():
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: run it inside "
                         "`with tf.Session():` or `sess.as_default()`")
    return sess


def _real_dtype(t):
    """The NumPy dtype of one real component of `t`'s elements."""
    return np.dtype(t.dtype.base_dtype.real_dtype.as_numpy_dtype)


def _components(t, shape):
    """The number of real components of a tensor of `shape` (2 per complex element)."""
    return int(np.prod(shape, dtype=np.int64)) * (2 if t.dtype.is_complex else 1)


def _as_reals(value, t):
    """A flat real view of `value`, an array of `t`'s dtype (complex -> re, im pairs)."""
    value = np.ascontiguousarray(value, dtype=t.dtype.base_dtype.as_numpy_dtype)
    return value.reshape(-1).view(_real_dtype(t))


def _dense_backprop(backprop, x, x_shape):
    """A gradient value as a dense array of x's shape (IndexedSlices are summed in)."""
    if hasattr(backprop, "indices") and hasattr(backprop, "values"):
        dense = np.zeros(x_shape, dtype=x.dtype.base_dtype.as_numpy_dtype)
        np.add.at(dense, np.asarray(backprop.indices), np.asarray(backprop.values))
        return dense
    return backprop


def _theoretical_jacobian(x, x_shape, x_value, dy, dy_shape, dx, extra_feed):
    x_size = _components(x, x_shape)
    dy_size = _components(dy, dy_shape)
    jac = np.zeros((x_size, dy_size), dtype=np.float64)
    if dx is None:
        return jac
    dy_value = np.zeros(dy_shape, dtype=dy.dtype.base_dtype.as_numpy_dtype)
    flat_dy = dy_value.reshape(-1).view(_real_dtype(dy))
    feed = dict(extra_feed)
    feed[x] = x_value
    feed[dy] = dy_value
    sess = _session()
    for col in range(dy_size):
        flat_dy[col] = 1
        backprop = _dense_backprop(sess.run(dx, feed), x, x_shape)
        jac[:, col] = _as_reals(backprop, x)
        flat_dy[col] = 0
    if not dy_size:
        # An empty y still runs its gradient once: it must be zeros of x's shape.
        backprop = np.asarray(_dense_backprop(sess.run(dx, feed), x, x_shape))
        if backprop.shape != tuple(x_shape):
            raise ValueError(f"Empty gradient has wrong shape: expected {tuple(x_shape)}, "
                             f"got {backprop.shape}")
        if np.any(backprop):
            raise ValueError("Empty tensor with nonzero gradients")
    return jac


def _numerical_jacobian(x, x_shape, x_value, y, y_shape, delta, extra_feed):
    x_size = _components(x, x_shape)
    y_size = _components(y, y_shape)
    jac = np.zeros((x_size, y_size), dtype=np.float64)
    # A C-ordered copy, so that `flat` is a view of the point that gets fed.
    point = np.array(x_value, dtype=x.dtype.base_dtype.as_numpy_dtype,
                     order="C").reshape(x_shape)
    flat = point.reshape(-1).view(_real_dtype(x))
    feed = dict(extra_feed)
    feed[x] = point
    sess = _session()
    for row in range(x_size):
        orig = flat[row]
        flat[row] = orig + delta
        y_pos = _as_reals(sess.run(y, feed), y).astype(np.float64)
        flat[row] = orig - delta
        y_neg = _as_reals(sess.run(y, feed), y).astype(np.float64)
        flat[row] = orig
        jac[row, :] = (y_pos - y_neg) / (2 * delta)
    return jac


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                     init_targets=None, extra_feed_dict=None):
    """The theoretical and numerical Jacobians of `y` with respect to `x`.

    Args:
      x: a Tensor or list of Tensors (fed with x_init_value or random values).
      x_shape: its shape (or a list of shapes).
      y: the output Tensor; y_shape its shape.
      x_init_value: the point to differentiate at (an array, or a list of them);
        default: uniform random values in [0, 1).
      delta: the finite-difference step.
      init_targets: ops to run first (e.g. variable initializers).
      extra_feed_dict: feeds for other placeholders y depends on.

    Returns:
      (theoretical, numerical) arrays of shape (x_size, y_size), complex elements
      counting twice; or a list of such pairs when `x` is a list.

    Raises:
      ValueError: without a default session, or when an empty y has a nonzero
        or misshapen gradient.
    """
    extra_feed = extra_feed_dict or {}
    if init_targets is not None:
        _session().run(init_targets)
    xs = x if isinstance(x, (list, tuple)) else [x]
    shapes = x_shape if isinstance(x, (list, tuple)) else [x_shape]
    inits = x_init_value if isinstance(x, (list, tuple)) else [x_init_value]
    if inits is None:
        inits = [None] * len(xs)
    dy = constant_op.placeholder(y.dtype.base_dtype, shape=y_shape, name="gradient_check_dy")
    dxs = gradients(y, list(xs), grad_ys=dy)
    rng = np.random.RandomState(1)
    values = []
    for xi, shape, init in zip(xs, shapes, inits):
        np_dtype = xi.dtype.base_dtype.as_numpy_dtype
        if init is None:
            init = rng.random_sample(shape)
            if xi.dtype.is_complex:
                init = init + 1j * rng.random_sample(shape)
        values.append(np.asarray(init, dtype=np_dtype).reshape(shape))
    out = []
    for i, (xi, shape, dx) in enumerate(zip(xs, shapes, dxs)):
        feed = dict(extra_feed)
        for j, (xj, vj) in enumerate(zip(xs, values)):
            if j != i:
                feed[xj] = vj
        theo = _theoretical_jacobian(xi, shape, values[i], dy, y_shape, dx, feed)
        numer = _numerical_jacobian(xi, shape, values[i], y, y_shape, delta, feed)
        out.append((theo, numer))
    return out if isinstance(x, (list, tuple)) else out[0]


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                           init_targets=None, extra_feed_dict=None):
    """The largest absolute difference between the theoretical and numerical Jacobians
    (over every x when `x` is a list); arguments as for `compute_gradient`."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    if isinstance(grads, tuple):
        grads = [grads]
    error = 0.0
    for theo, numer in grads:
        if theo.size or numer.size:
            error = max(error, float(np.fabs(theo - numer).max()))
    return error
