"""Summary ops."""
