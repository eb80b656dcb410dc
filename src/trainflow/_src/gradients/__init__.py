"""trainflow._src.gradients."""
