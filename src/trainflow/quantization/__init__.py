"""`tf.quantization`: float tensors to quantized dtypes and back, quantized concat, and
simulated (fake) quantization."""
from trainflow._src.ops.array.quantize_ops import (  # noqa: F401
    dequantize, quantize, quantized_concat)
from trainflow._src.ops.array.quantize_dequantize import (  # noqa: F401
    fake_quant_with_min_max_args, fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars, fake_quant_with_min_max_vars_gradient,
    quantize_and_dequantize)
from trainflow._src.ops.array.fake_quant_per_channel import (  # noqa: F401
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient)
