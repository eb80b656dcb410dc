"""One table of every tf.train optimizer: TF's slot names and op types, hyperparameters
as floats, tensors and callables, float16/32/64, sparse gradients with repeated ids
(summed before the update, as TF's Optimizer does), and the constructors' errors.
Trajectories against real TF are in test_optimizer_fixtures.py."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

# (class, kwargs, {slot name: slot variable suffix}, dense op type, sparse op type)
TABLE = [
    (tf.train.GradientDescentOptimizer, {"learning_rate": 0.1}, {},
     "ApplyGradientDescent", "ScatterSub"),
    (tf.train.MomentumOptimizer, {"learning_rate": 0.1, "momentum": 0.9},
     {"momentum": "Momentum"}, "ApplyMomentum", "SparseApplyMomentum"),
    (tf.train.AdagradOptimizer, {"learning_rate": 0.1}, {"accumulator": "Adagrad"},
     "ApplyAdagrad", "SparseApplyAdagrad"),
    (tf.train.AdagradDAOptimizer, {"learning_rate": 0.1, "global_step": "STEP"},
     {"gradient_accumulator": "AdagradDA", "gradient_squared_accumulator": "AdagradDA_1"},
     "ApplyAdagradDA", "SparseApplyAdagradDA"),
    (tf.train.AdadeltaOptimizer, {"learning_rate": 1.0},
     {"accum": "Adadelta", "accum_update": "Adadelta_1"}, "ApplyAdadelta",
     "SparseApplyAdadelta"),
    (tf.train.FtrlOptimizer, {"learning_rate": 0.1, "l1_regularization_strength": 0.01},
     {"accum": "Ftrl", "linear": "Ftrl_1"}, "ApplyFtrl", "SparseApplyFtrl"),
    (tf.train.FtrlOptimizer, {"learning_rate": 0.1, "l2_shrinkage_regularization_strength": 0.1,
                              "beta": 0.5},
     {"accum": "Ftrl", "linear": "Ftrl_1"}, "ApplyFtrlV2", "SparseApplyFtrlV2"),
    (tf.train.ProximalGradientDescentOptimizer, {"learning_rate": 0.1}, {},
     "ApplyProximalGradientDescent", "SparseApplyProximalGradientDescent"),
    (tf.train.ProximalAdagradOptimizer, {"learning_rate": 0.1}, {"accumulator": "ProximalAdagrad"},
     "ApplyProximalAdagrad", "SparseApplyProximalAdagrad"),
    (tf.train.RMSPropOptimizer, {"learning_rate": 0.1, "momentum": 0.5},
     {"rms": "RMSProp", "momentum": "RMSProp_1"}, "ApplyRMSProp", "SparseApplyRMSProp"),
    (tf.train.RMSPropOptimizer, {"learning_rate": 0.1, "centered": True},
     {"rms": "RMSProp", "mg": "RMSProp_1", "momentum": "RMSProp_2"}, "ApplyCenteredRMSProp",
     "SparseApplyCenteredRMSProp"),
    (tf.train.AdamOptimizer, {"learning_rate": 0.1}, {"m": "Adam", "v": "Adam_1"},
     "ApplyAdam", "ScatterAdd"),
]
IDS = [f"{row[0].__name__}-{i}" for i, row in enumerate(TABLE)]
# The proximal optimizers don't cast their hyperparameters (TF doesn't either).
UNCAST = (tf.train.ProximalGradientDescentOptimizer, tf.train.ProximalAdagradOptimizer)


def _make(cls, kwargs, step, transform=lambda k, v: v):
    args = {k: (step if v == "STEP" else transform(k, v)) for k, v in kwargs.items()}
    return cls(**args)


def _train(cls, kwargs, dtype, sparse_ids=None, transform=lambda k, v: v, steps=3):
    g = tf.Graph()
    with g.as_default():
        emb = tf.Variable(np.arange(8, dtype=dtype).reshape(4, 2) / 4 + 1, name="emb")
        step = tf.train.get_or_create_global_step()
        opt = _make(cls, kwargs, step, transform)
        if sparse_ids is None:
            loss = tf.reduce_sum(emb * emb) / 2
        else:
            weights = np.arange(2 * len(sparse_ids), dtype=dtype).reshape(-1, 2) / 10 - 0.3
            loss = tf.reduce_sum(tf.gather(emb, sparse_ids) * weights)
        train = opt.minimize(loss, global_step=step)
        types = {op.type for op in g.get_operations()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
            value = sess.run(emb)
            slots = {s: (opt.get_slot(emb, s).op.name, sess.run(opt.get_slot(emb, s)))
                     for s in opt.get_slot_names()}
    return value, slots, types


@pytest.mark.parametrize("cls,kwargs,slots,dense_type,sparse_type", TABLE, ids=IDS)
def test_slots_and_op_types(cls, kwargs, slots, dense_type, sparse_type):
    value, got_slots, types = _train(cls, kwargs, np.float32)
    assert {s: name for s, (name, _) in got_slots.items()} == \
        {s: "emb/" + suffix for s, suffix in slots.items()}
    assert dense_type in types
    assert not np.allclose(value, np.arange(8).reshape(4, 2) / 4 + 1)
    _, _, sparse_types = _train(cls, kwargs, np.float32, sparse_ids=[0, 2, 0])
    assert sparse_type in sparse_types


@pytest.mark.parametrize("cls,kwargs,slots,dense_type,sparse_type", TABLE, ids=IDS)
def test_repeated_ids_are_summed_before_the_update(cls, kwargs, slots, dense_type,
                                                   sparse_type):
    # ids [0, 2, 0] with weight rows w0, w1, w2 give the same gradient as ids [0, 2]
    # with rows w0 + w2, w1; the weights in _train are arange/10 - 0.3.
    dtype = np.float32 if cls in UNCAST else np.float64
    repeated, _, _ = _train(cls, kwargs, dtype, sparse_ids=[0, 2, 0])
    w = np.arange(6).reshape(3, 2) / 10 - 0.3
    g = tf.Graph()
    with g.as_default():
        emb = tf.Variable(np.arange(8, dtype=dtype).reshape(4, 2) / 4 + 1, name="emb")
        step = tf.train.get_or_create_global_step()
        opt = _make(cls, kwargs, step)
        values = np.stack([w[0] + w[2], w[1]]).astype(dtype)
        grad = tf.IndexedSlices(tf.constant(values), tf.constant([0, 2]),
                                tf.constant([4, 2]))
        train = opt.apply_gradients([(grad, emb)], global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            unique = sess.run(emb)
    np.testing.assert_allclose(repeated, unique, rtol=1e-6 if cls in UNCAST else 1e-12)
    if sparse_type.startswith("SparseApply"):  # rows without a gradient stay put
        np.testing.assert_array_equal(repeated[[1, 3]], np.array([[1.5, 1.75], [2.5, 2.75]]))


@pytest.mark.parametrize("cls,kwargs,slots,dense_type,sparse_type", TABLE, ids=IDS)
@pytest.mark.parametrize("form", ["tensor", "callable"])
def test_hyperparameters_as_tensors_and_callables(cls, kwargs, slots, dense_type, sparse_type,
                                                  form):
    if form == "callable" and cls in UNCAST + (tf.train.FtrlOptimizer,
                                               tf.train.AdagradDAOptimizer):
        pytest.skip("TF's Ftrl, AdagradDA and proximal optimizers take floats or tensors only")

    def transform(key, v):
        if key not in ("learning_rate", "momentum") or not isinstance(v, float):
            return v
        t = tf.constant(v)
        return t if form == "tensor" else (lambda: t)

    plain, _, _ = _train(cls, kwargs, np.float32)
    other, _, _ = _train(cls, kwargs, np.float32, transform=transform)
    np.testing.assert_array_equal(plain, other)


@pytest.mark.parametrize("cls,kwargs,slots,dense_type,sparse_type",
                         [row for row in TABLE if row[0] not in UNCAST],
                         ids=[i for i, row in zip(IDS, TABLE) if row[0] not in UNCAST])
def test_float16_and_float64_follow_float32(cls, kwargs, slots, dense_type, sparse_type):
    ref, _, _ = _train(cls, kwargs, np.float32)
    half, _, _ = _train(cls, kwargs, np.float16)
    double, _, _ = _train(cls, kwargs, np.float64)
    assert half.dtype == np.float16 and double.dtype == np.float64
    np.testing.assert_allclose(half, ref, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(double, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make,message", [
    (lambda: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0),
     "initial_accumulator_value must be positive: 0.0"),
    (lambda: tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=-1.0),
     "initial_accumulator_value must be positive: -1.0"),
    (lambda: tf.train.AdagradDAOptimizer(0.1, None,
                                         initial_gradient_squared_accumulator_value=0.0),
     "initial_gradient_squared_accumulator_value must be positive: 0.0"),
    (lambda: tf.train.FtrlOptimizer(0.1, initial_accumulator_value=-0.1),
     "initial_accumulator_value -0.100000 needs to be positive or zero"),
    (lambda: tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5),
     "learning_rate_power 0.500000 needs to be negative or zero"),
    (lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0),
     "l1_regularization_strength -1.000000 needs to be positive or zero"),
    (lambda: tf.train.FtrlOptimizer(0.1, l2_regularization_strength=-1.0),
     "l2_regularization_strength -1.000000 needs to be positive or zero"),
    (lambda: tf.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=-1.0),
     "l2_shrinkage_regularization_strength -1.000000 needs to be positive or zero"),
    (lambda: tf.train.MomentumOptimizer(0.1, 0.9, name=""), "Must specify the optimizer name"),
])
def test_constructor_errors(make, message):
    with pytest.raises(ValueError) as err:
        make()
    assert str(err.value) == message


def test_defaults_follow_tf():
    opt = tf.train.RMSPropOptimizer(0.1)
    assert (opt._decay, opt._momentum, opt._epsilon, opt._centered) == (0.9, 0.0, 1e-10, False)
    opt = tf.train.AdadeltaOptimizer()
    assert (opt._lr, opt._rho, opt._epsilon, opt.get_name()) == (0.001, 0.95, 1e-8, "Adadelta")
    opt = tf.train.FtrlOptimizer(0.1)
    assert (opt._learning_rate_power, opt._initial_accumulator_value) == (-0.5, 0.1)
    assert tf.train.MomentumOptimizer(0.1, 0.9)._use_nesterov is False


def test_ftrl_slot_scope_names():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        opt = tf.train.FtrlOptimizer(0.1, accum_name="A", linear_name="L")
        opt.minimize(tf.reduce_sum(v))
        assert opt.get_slot(v, "accum").op.name == "v/A"
        assert opt.get_slot(v, "linear").op.name == "v/L"


def test_adagrad_da_counts_steps_from_its_global_step():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, -2.0], name="v")
        step = tf.train.get_or_create_global_step()
        opt = tf.train.AdagradDAOptimizer(0.1, step, l2_regularization_strength=0.5)
        train = opt.minimize(tf.reduce_sum(v * [0.5, 0.25]), global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            sess.run(train)
            got = sess.run(v)
    # after two steps at t = 1, 2: var = -g_acc * lr / (l2 * t * lr + sqrt(gg_acc))
    g = np.array([0.5, 0.25])
    want = -2 * g * 0.1 / (0.5 * 2 * 0.1 + np.sqrt(0.1 + 2 * g * g))
    np.testing.assert_allclose(got, want, rtol=1e-6)
