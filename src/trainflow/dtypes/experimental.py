"""`tf.dtypes.experimental`: the 8-, 4- and 2-bit element types."""
from trainflow._src.framework.dtypes import (  # noqa: F401
    float4_e2m1fn, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
    float8_e5m2fnuz, int2, int4, uint2, uint4)
