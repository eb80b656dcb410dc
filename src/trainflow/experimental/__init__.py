"""`tf.experimental`: TF's experimental names trainflow has (the 8-, 4- and 2-bit dtypes,
the same objects as `tf.dtypes.experimental`'s)."""
from trainflow.dtypes.experimental import (  # noqa: F401
    float4_e2m1fn, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
    float8_e5m2fnuz, int2, int4, uint2, uint4)
