"""trainflow._src.protos."""
