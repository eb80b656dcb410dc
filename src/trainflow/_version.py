"""The package version (a leaf module: the CLI reads it without importing the namespace)."""
__version__ = "0.1.0"
