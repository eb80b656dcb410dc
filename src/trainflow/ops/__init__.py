"""trainflow.ops."""
