"""trainflow.framework."""
