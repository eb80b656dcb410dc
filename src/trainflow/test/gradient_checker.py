"""Finite-difference checks of symbolic gradients (`tf.test.compute_gradient[_error]`)."""
import numpy as np



def _session():
    from trainflow.runtime.session import get_default_session
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: run it inside "
                         "`with tf.Session():` or `sess.as_default()`")
    return sess


def _theoretical_jacobian(x, x_shape, x_value, dy, dy_shape, dx, extra_feed):
    x_size = int(np.prod(x_shape))
    dy_size = int(np.prod(dy_shape))
    jac = np.zeros((x_size, dy_size), dtype=np.float64)
    dy_value = np.zeros(dy_shape, dtype=dy.dtype.base_dtype.as_numpy_dtype)
    flat_dy = dy_value.reshape(-1)
    sess = _session()
    for col in range(dy_size):
        flat_dy[col] = 1
        feed = dict(extra_feed)
        feed[x] = x_value
        feed[dy] = dy_value
        if dx is None:
            flat_dy[col] = 0
            continue
        backprop = sess.run(dx, feed)
        if hasattr(backprop, "indices"):
            dense = np.zeros(x_shape, dtype=np.float64)
            np.add.at(dense, backprop.indices, backprop.values)
            backprop = dense
        jac[:, col] = np.asarray(backprop, dtype=np.float64).reshape(x_size)
        flat_dy[col] = 0
    return jac


def _numerical_jacobian(x, x_shape, x_value, y, y_shape, delta, extra_feed):
    x_size = int(np.prod(x_shape))
    y_size = int(np.prod(y_shape))
    jac = np.zeros((x_size, y_size), dtype=np.float64)
    sess = _session()
    x_dtype = x.dtype.base_dtype.as_numpy_dtype
    flat = np.array(x_value, dtype=x_dtype).reshape(-1)
    for row in range(x_size):
        orig = flat[row]
        flat[row] = orig + delta
        feed = dict(extra_feed)
        feed[x] = flat.reshape(x_shape)
        y_pos = np.asarray(sess.run(y, feed), dtype=np.float64)
        flat[row] = orig - delta
        feed[x] = flat.reshape(x_shape)
        y_neg = np.asarray(sess.run(y, feed), dtype=np.float64)
        flat[row] = orig
        jac[row, :] = ((y_pos - y_neg) / (2 * delta)).reshape(y_size)
    return jac


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                     init_targets=None, extra_feed_dict=None):
    """The theoretical and numerical Jacobians of `y` with respect to `x`.

    Args:
      x: a Tensor or list of Tensors (fed with x_init_value or random values).
      x_shape: its shape (or a list of shapes).
      y: the output Tensor; y_shape its shape.
      delta: the finite-difference step.
      init_targets: ops to run first (e.g. variable initializers).

    Returns:
      (theoretical, numerical) arrays of shape (x_size, y_size), or a list of such
      pairs when `x` is a list.
    """
    from trainflow.gradients.gradients_impl import gradients
    from trainflow.ops import constant_op
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
            init = rng.random_sample(shape).astype(np_dtype)
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
    """The largest absolute difference between the theoretical and numerical Jacobians."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    if isinstance(grads, tuple):
        grads = [grads]
    error = 0.0
    for theo, numer in grads:
        if theo.size or numer.size:
            error = max(error, float(np.fabs(theo - numer).max()))
    return error


