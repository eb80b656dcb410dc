"""variables (being written)."""
__all__ = []
