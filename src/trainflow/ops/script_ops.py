"""script_ops (being written)."""
__all__ = []
