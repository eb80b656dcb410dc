"""`tf.dtypes`: the DType class and its instances."""
from trainflow._src.framework.dtypes import (  # noqa: F401
    DType, QUANTIZED_DTYPES, as_dtype, bfloat16, bool, complex128, complex64, double,
    float16, float32, float64, half, int16, int32, int64, int8, qint16, qint32, qint8,
    quint16, quint8, resource, string, uint16, uint32, uint64, uint8, variant)
from trainflow._src.ops.array.cast import cast  # noqa: F401
from trainflow._src.ops.array.saturate import saturate_cast  # noqa: F401
from trainflow._src.ops.math.complex_ops import complex  # noqa: F401
from trainflow._src.ops.string.string_convert import as_string  # noqa: F401
from trainflow.dtypes import experimental  # noqa: F401
