"""trainflow.runtime."""
