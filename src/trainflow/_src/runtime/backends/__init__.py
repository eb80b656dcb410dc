"""Backends: each turns a segment of a plan into code (numpy: generated Python)."""
