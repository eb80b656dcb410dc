"""trainflow._src.runtime."""
