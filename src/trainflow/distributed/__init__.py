"""trainflow.distributed."""
