"""trainflow._src.kernels."""
