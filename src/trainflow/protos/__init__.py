"""trainflow.protos."""
