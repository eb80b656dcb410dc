"""`tf.nest`: walks over nested structures (lists, tuples, namedtuples, dicts, attrs)."""
from trainflow._src.framework.nest_api import (  # noqa: F401
    assert_same_structure, flatten, is_nested, map_structure, pack_sequence_as)

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]
