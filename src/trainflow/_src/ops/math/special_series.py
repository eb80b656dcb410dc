"""NumPy float64 evaluations of the special functions of `tf.math.special` (Bessel J, Y
and K of orders 0 and 1, Dawson's integral, Ei, the Fresnel integrals, Spence's
function) and of erfinv, ndtri and the regularized incomplete beta function.

`special_kernels` uses SciPy's ufuncs when SciPy is installed (Cephes, as TensorFlow's
kernels); these are the fallback: power series where they converge without much
cancellation, asymptotic expansions or quadratures beyond, accurate to well below
float32 round-off. Every function takes and returns float64 arrays.
"""
import math

import numpy as np

EULER = 0.5772156649015329

_SERIES_TERMS = 60


def _bessel_j_series(order, x):
    """J_order(x) from its power series (float64; fine for |x| <= 12)."""
    q = -(x / 2.0) ** 2
    term = (x / 2.0) ** order / math.factorial(order)
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + order))
        total = total + term
    return total


def _hankel(order, x):
    """(P, Q) of Hankel's asymptotic expansion for J/Y of `order` (x >= 12)."""
    mu = 4.0 * order * order
    p, q = np.ones_like(x), np.zeros_like(x)
    coef = np.ones_like(x)
    for k in range(1, 30):
        coef = coef * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2:
            q = q + sign * coef
        else:
            p = p + sign * coef
    return p, q


def _bessel_jy(order, x):
    """(J_order(x), Y_order(x)) for x > 0 (float64 arrays)."""
    small = x <= 12.0
    j = np.empty_like(x)
    y = np.empty_like(x)
    s = x[small]
    js = _bessel_j_series(order, s)
    j[small] = js
    half = s / 2.0
    q = (half * half)
    if order == 0:
        term = np.ones_like(s)
        acc = np.zeros_like(s)
        harmonic = 0.0
        for k in range(1, _SERIES_TERMS):
            term = term * -q / (k * k)
            harmonic += 1.0 / k
            acc = acc - harmonic * term
        y[small] = (2.0 / np.pi) * ((np.log(half) + EULER) * js + acc)
    else:
        # Y1 = (2/pi) J1 ln(x/2) - 2/(pi x)
        #      - (1/pi) sum_k (-1)^k (psi(k+1) + psi(k+2)) (x/2)^(2k+1) / (k! (k+1)!).
        term = half.copy()
        psi_sum = -2.0 * EULER + 1.0
        acc = psi_sum * term
        for k in range(1, _SERIES_TERMS):
            term = term * -q / (k * (k + 1))
            psi_sum += 1.0 / k + 1.0 / (k + 1)
            acc = acc + psi_sum * term
        y[small] = (2.0 / np.pi) * js * np.log(half) - 2.0 / (np.pi * s) - acc / np.pi
    b = x[~small]
    p, qq = _hankel(order, b)
    w = b - (order / 2.0 + 0.25) * np.pi
    amp = np.sqrt(2.0 / (np.pi * b))
    j[~small] = amp * (p * np.cos(w) - qq * np.sin(w))
    y[~small] = amp * (p * np.sin(w) + qq * np.cos(w))
    return j, y


def bessel_j0(x):
    """J0 (even)."""
    a = np.abs(x)
    out = np.where(np.isnan(a), np.nan, 1.0)
    pos = a > 0
    out[pos] = _bessel_jy(0, a[pos])[0]
    return out


def bessel_j1(x):
    """J1 (odd)."""
    a = np.abs(x)
    out = np.zeros_like(a)
    pos = a > 0
    out[pos] = _bessel_jy(1, a[pos])[0]
    return np.sign(x) * out


def _y(order, x):
    out = np.where(x == 0, -np.inf, np.nan)
    pos = x > 0
    out[pos] = _bessel_jy(order, x[pos])[1]
    return out


def bessel_y0(x):
    """Y0 (-inf at 0, NaN below)."""
    return _y(0, x)


def bessel_y1(x):
    """Y1 (-inf at 0, NaN below)."""
    return _y(1, x)


def _bessel_i_series(order, x):
    q = (x / 2.0) ** 2
    term = (x / 2.0) ** order / math.factorial(order)
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + order))
        total = total + term
    return total


def _k_scaled(order, x):
    """K_order(x) exp(x) for x > 0."""
    out = np.empty_like(x)
    small = x <= 2.0
    s = x[small]
    half = s / 2.0
    q = half * half
    if order == 0:
        term = np.ones_like(s)
        acc = np.zeros_like(s)
        harmonic = 0.0
        for k in range(1, _SERIES_TERMS):
            term = term * q / (k * k)
            harmonic += 1.0 / k
            acc = acc + harmonic * term
        k_small = -(np.log(half) + EULER) * _bessel_i_series(0, s) + acc
    else:
        # K1 = 1/x + I1 ln(x/2) - (x/4) sum_k (psi(k+1) + psi(k+2)) (x^2/4)^k / (k! (k+1)!).
        term = np.ones_like(s)
        psi_sum = -2.0 * EULER + 1.0
        acc = psi_sum * term
        for k in range(1, _SERIES_TERMS):
            term = term * q / (k * (k + 1))
            psi_sum += 1.0 / k + 1.0 / (k + 1)
            acc = acc + psi_sum * term
        k_small = 1.0 / s + _bessel_i_series(1, s) * np.log(half) - s / 4.0 * acc
    out[small] = k_small * np.exp(s)
    mid = (x > 2.0) & (x <= 30.0)
    # K_v(x) e^x = int_0^inf exp(-x (cosh t - 1)) cosh(v t) dt: the trapezoid rule
    # converges geometrically on this entire, doubly-exponentially decaying integrand.
    m = x[mid][:, None]
    h = 0.05
    t = np.arange(0.0, 4.5, h)[None, :]
    weights = np.full(t.shape, h)
    weights[0, 0] = h / 2.0
    out[mid] = (np.exp(-m * (np.cosh(t) - 1.0)) * np.cosh(order * t) * weights).sum(-1)
    big = x[x > 30.0]
    mu = 4.0 * order * order
    coef, series = np.ones_like(big), np.ones_like(big)
    for k in range(1, 25):
        coef = coef * (mu - (2 * k - 1) ** 2) / (k * 8.0 * big)
        series = series + coef
    out[x > 30.0] = series * np.sqrt(np.pi / (2.0 * big))
    return out


def _k(order, x, scaled):
    out = np.where(x == 0, np.inf, np.nan)
    pos = x > 0
    val = _k_scaled(order, x[pos])
    out[pos] = val if scaled else val * np.exp(-x[pos])
    return out


def bessel_k0(x):
    """K0 (inf at 0, NaN below)."""
    return _k(0, x, False)


def bessel_k0e(x):
    """K0(x) exp(x)."""
    return _k(0, x, True)


def bessel_k1(x):
    """K1 (inf at 0, NaN below)."""
    return _k(1, x, False)


def bessel_k1e(x):
    """K1(x) exp(x)."""
    return _k(1, x, True)


def dawsn(x):
    """Dawson's integral exp(-x^2) int_0^x exp(t^2) dt (odd)."""
    a = np.abs(x)
    out = np.empty_like(a)
    small = a < 0.5
    s = a[small]
    # Taylor series: sum_k (-1)^k 2^k x^(2k+1) / (1 3 5 ... (2k+1)).
    term = s.copy()
    total = s.copy()
    for k in range(1, 30):
        term = term * -2.0 * s * s / (2 * k + 1)
        total = total + term
    out[small] = total
    mid = (a >= 0.5) & (a <= 50.0)
    # Rybicki's sum: F(z) = pi^-1/2 sum_{n odd} exp(-(z - n h)^2) / n, whose error is
    # about exp(-(pi / 2h)^2): h = 0.25 is exact in float64.
    z = a[mid][:, None]
    h = 0.25
    n = 2.0 * np.floor(z / (2.0 * h)) + 1.0 + 2.0 * np.arange(-30, 31)[None, :]
    out[mid] = (np.exp(-(z - n * h) ** 2) / n).sum(-1) / np.sqrt(np.pi)
    big = a[a > 50.0]
    inv = 1.0 / (2.0 * big * big)
    out[a > 50.0] = (1.0 + inv * (1.0 + 3.0 * inv * (1.0 + 5.0 * inv))) / (2.0 * big)
    return np.sign(x) * out


def expint(x):
    """The exponential integral Ei(x) (-inf at 0; -E1(-x) below 0)."""
    out = np.full(x.shape, -np.inf)
    pos = x > 0
    p = x[pos]
    res = np.empty_like(p)
    small = p <= 40.0
    s = p[small]
    term = np.ones_like(s)
    acc = np.zeros_like(s)
    for k in range(1, 200):
        term = term * s / k
        acc = acc + term / k
    res[small] = EULER + np.log(s) + acc
    b = p[~small]
    coef, series = np.ones_like(b), np.ones_like(b)
    for k in range(1, 40):
        coef = coef * k / b
        series = series + coef
    res[~small] = np.exp(b) / b * series
    out[pos] = res
    neg = x < 0
    out[neg] = -_e1(-x[neg])
    out[np.isnan(x)] = np.nan
    out[x == np.inf] = np.inf
    out[x == -np.inf] = -0.0
    return out


def _e1(z):
    """E1(z) for z > 0: its series up to 1, a continued fraction beyond."""
    out = np.empty_like(z)
    small = z <= 1.0
    s = z[small]
    term = np.ones_like(s)
    acc = np.zeros_like(s)
    for k in range(1, 40):
        term = term * -s / k
        acc = acc + term / k
    out[small] = -EULER - np.log(s) - acc
    b = z[~small]
    # Lentz's evaluation of E1(z) = e^-z / (z + 1 - 1/(z + 3 - 4/(z + 5 - ...))).
    tiny = 1e-300
    bb = b + 1.0
    c = np.full_like(b, 1.0 / tiny)
    d = 1.0 / bb
    f = d.copy()
    for i in range(1, 200):
        an = -float(i * i)
        bb = bb + 2.0
        d = 1.0 / (an * d + bb)
        c = bb + an / c
        f = f * c * d
    out[~small] = f * np.exp(-b)
    return out


def _fresnel(x):
    """(S(x), C(x)) with the pi t^2 / 2 argument (both odd)."""
    a = np.abs(x)
    s_out = np.empty_like(a)
    c_out = np.empty_like(a)
    small = a < 3.0
    v = a[small]
    z = np.pi / 2.0 * v * v
    # C = sum_k (-1)^k z^2k x / ((2k)! (4k+1)), S = sum_k (-1)^k z^(2k+1) x / ((2k+1)! (4k+3)).
    term = v.copy()
    c_sum = v.copy()
    s_sum = np.zeros_like(v)
    for n in range(1, 80):
        term = term * z / n  # z^n x / n!
        if n % 2:
            s_sum = s_sum + (-1.0 if (n // 2) % 2 else 1.0) * term / (2 * n + 1)
        else:
            c_sum = c_sum + (-1.0 if (n // 2) % 2 else 1.0) * term / (2 * n + 1)
    s_out[small], c_out[small] = s_sum, c_sum
    mid = (a >= 3.0) & (a <= 8.0)
    # Gauss-Legendre on [0, x]: 200 nodes resolve the at most 32 periods there.
    nodes, weights = np.polynomial.legendre.leggauss(200)
    half = a[mid][:, None] / 2.0
    t = half * (nodes[None, :] + 1.0)
    phase = np.pi / 2.0 * t * t
    s_out[mid] = (np.sin(phase) * weights).sum(-1) * half[:, 0]
    c_out[mid] = (np.cos(phase) * weights).sum(-1) * half[:, 0]
    big = a > 8.0
    b = a[big]
    finite = np.isfinite(b)
    u = 1.0 / (np.pi * b * b)
    f = np.zeros_like(b)
    g = np.zeros_like(b)
    tf = 1.0 / (np.pi * b)
    tg = u / (np.pi * b)
    # The auxiliary functions' asymptotic series; at x >= 8 twelve terms are exact.
    for k in range(12):
        sign = -1.0 if k % 2 else 1.0
        f = f + sign * tf
        g = g + sign * tg
        tf = tf * (4 * k + 1) * (4 * k + 3) * u * u
        tg = tg * (4 * k + 3) * (4 * k + 5) * u * u
    with np.errstate(invalid="ignore"):
        w = np.pi / 2.0 * np.fmod(b * b, 4.0)  # sin/cos of pi x^2 / 2 have period 4 in x^2
        c_big = 0.5 + f * np.sin(w) - g * np.cos(w)
        s_big = 0.5 - f * np.cos(w) - g * np.sin(w)
    c_out[big] = np.where(finite, c_big, 0.5)
    s_out[big] = np.where(finite, s_big, 0.5)
    sign = np.sign(x)
    return sign * s_out, sign * c_out


def fresnel_sin(x):
    """S(x) = int_0^x sin(pi t^2 / 2) dt."""
    return _fresnel(x)[0]


def fresnel_cos(x):
    """C(x) = int_0^x cos(pi t^2 / 2) dt."""
    return _fresnel(x)[1]


def _dilog(z):
    """Li2(z) for real z <= 1 (float64 arrays)."""
    out = np.empty_like(z)
    if z.size == 0:
        return out
    for mask, fn in ((z < -1.0, _dilog_below), ((z >= -1.0) & (z < -0.5), _dilog_landen),
                     ((z >= -0.5) & (z <= 0.5), _dilog_series),
                     (z > 0.5, _dilog_reflect)):
        out[mask] = fn(z[mask])
    return out


def _dilog_series(z):
    term = z.copy()
    total = z.copy()
    for k in range(2, 60):
        term = term * z
        total = total + term / (k * k)
    return total


def _dilog_reflect(z):
    # Li2(z) = pi^2/6 - ln z ln(1 - z) - Li2(1 - z).
    with np.errstate(divide="ignore", invalid="ignore"):
        log_term = np.where(z == 1.0, 0.0, np.log(z) * np.log1p(-z))
    return np.pi ** 2 / 6.0 - log_term - _dilog_series(1.0 - z)


def _dilog_landen(z):
    # Li2(z) = -Li2(z / (z - 1)) - ln(1 - z)^2 / 2, with z / (z - 1) in [1/3, 1/2].
    return -_dilog_series(z / (z - 1.0)) - 0.5 * np.log1p(-z) ** 2


def _dilog_below(z):
    # Li2(z) = -pi^2/6 - ln(-z)^2 / 2 - Li2(1/z).
    return -np.pi ** 2 / 6.0 - 0.5 * np.log(-z) ** 2 - _dilog(1.0 / z)


def spence(x):
    """Spence's function int_1^x ln t / (1 - t) dt = Li2(1 - x) (NaN below 0)."""
    out = np.full(x.shape, np.nan)
    ok = (x >= 0) & (x < np.inf)
    out[ok] = _dilog(1.0 - x[ok])
    return out


_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _erfc(x):
    return np.asarray(_ERFC(x), dtype=np.float64)


def ndtri(p):
    """The inverse of the standard normal CDF (-inf at 0, inf at 1, NaN outside)."""
    p = np.asarray(p, np.float64)
    out = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, np.nan))
    ok = (p > 0) & (p < 1)
    q = p[ok]
    upper = q > 0.5
    tail = np.where(upper, 1.0 - q, q)  # exact for float32 inputs
    # A first guess from the tail's sqrt(-2 ln p) form, refined by Newton steps on
    # Phi(y) = erfc(-y / sqrt 2) / 2 evaluated on the lower tail.
    t = np.sqrt(-2.0 * np.log(tail))
    y = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t)
          / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3))
    for _ in range(6):
        err = 0.5 * _erfc(-y / np.sqrt(2.0)) - tail
        density = np.exp(-0.5 * y * y) / np.sqrt(2.0 * np.pi)
        step = err / density
        y = y - step / (1.0 + 0.5 * y * step)  # Halley's correction
    out[ok] = np.where(upper, -y, y)
    out[p == 0.5] = 0.0
    return out


def erfinv(x):
    """The inverse error function (+-inf at +-1, NaN outside [-1, 1])."""
    x = np.asarray(x, np.float64)
    out = np.where(x == 1, np.inf, np.where(x == -1, -np.inf, np.nan))
    ok = np.abs(x) < 1
    v = x[ok]
    a = np.abs(v)
    # erfinv(a) = -ndtri(erfc-tail) / sqrt 2 with the tail (1 - a) / 2 exact in float64;
    # small arguments use the Maclaurin series, which keeps relative precision.
    res = -ndtri((1.0 - a) / 2.0) / np.sqrt(2.0)
    tiny = a < 1e-3
    w = np.sqrt(np.pi) / 2.0 * a[tiny]
    res[tiny] = w + w ** 3 / 3.0 + 7.0 * w ** 5 / 30.0
    out[ok] = np.sign(v) * res
    return out


def _betainc_scalar(a, b, x):
    if not (a > 0 and b > 0) or not 0 <= x <= 1 or math.isnan(a + b + x):
        return math.nan
    if x == 0 or x == 1:
        return float(x)
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _betainc_scalar_cf(b, a, 1.0 - x, log_front)
    return _betainc_scalar_cf(a, b, x, log_front)


def _betainc_scalar_cf(a, b, x, log_front):
    # The continued fraction of I_x(a, b), by the modified Lentz method.
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return math.exp(log_front) * h / a


_BETAINC = np.frompyfunc(_betainc_scalar, 3, 1)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (broadcast, float64)."""
    return np.asarray(_BETAINC(a, b, x), dtype=np.float64)
