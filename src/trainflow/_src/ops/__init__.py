"""trainflow._src.ops."""
