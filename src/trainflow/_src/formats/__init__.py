"""trainflow._src.formats."""
