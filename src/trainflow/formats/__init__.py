"""trainflow.formats."""
