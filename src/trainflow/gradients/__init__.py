"""trainflow.gradients."""
