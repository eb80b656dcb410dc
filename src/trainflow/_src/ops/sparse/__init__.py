"""Sparse tensor ops."""
