"""trainflow.kernels."""
