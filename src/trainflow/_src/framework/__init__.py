"""trainflow._src.framework."""
