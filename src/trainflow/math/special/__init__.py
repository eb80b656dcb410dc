"""`tf.math.special`: Bessel functions of orders 0 and 1 (I, J, K, Y and the scaled
forms), Dawson's integral, the exponential integral, the Fresnel integrals and
Spence's function."""
from trainflow._src.ops.math.bessel import (  # noqa: F401
    bessel_i0, bessel_i0e, bessel_i1, bessel_i1e)
from trainflow._src.ops.math.special_ops import (  # noqa: F401
    bessel_j0, bessel_j1, bessel_k0, bessel_k0e, bessel_k1, bessel_k1e, bessel_y0,
    bessel_y1, dawsn, expint, fresnel_cos, fresnel_sin, spence)
