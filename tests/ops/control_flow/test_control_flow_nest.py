"""ops/nest.py: flattening and packing nested structures as tf.nest does."""
import collections

import pytest

from trainflow._src.framework import nest

Point = collections.namedtuple("Point", "x y")


def test_flatten_orders_dicts_by_key_and_keeps_leaves():
    s = {"b": [1, (2, 3)], "a": Point(4, None), "c": "text"}
    assert nest.flatten(s) == [4, None, 1, 2, 3, "text"]
    assert nest.flatten(5) == [5]
    assert nest.flatten([]) == []


def test_pack_sequence_as_rebuilds_types():
    s = {"b": [1, (2, 3)], "a": Point(4, 5)}
    packed = nest.pack_sequence_as(s, list("uvwxy"))
    assert packed == {"a": Point("u", "v"), "b": ["w", ("x", "y")]}
    assert list(packed) == ["b", "a"]
    assert isinstance(packed["a"], Point)
    dd = collections.defaultdict(list, {"k": 1})
    out = nest.pack_sequence_as(dd, [7])
    assert isinstance(out, collections.defaultdict) and out["k"] == 7
    assert nest.pack_sequence_as(3, ["z"]) == "z"
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 1"):
        nest.pack_sequence_as([1, 2], [1])


def test_assert_same_structure():
    nest.assert_same_structure([1, (2, 3)], ["a", ("b", "c")])
    nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=2))
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        nest.assert_same_structure([1, 2], [1, [2]])
    with pytest.raises(ValueError, match="same number of elements"):
        nest.assert_same_structure([1, 2], [1])
    with pytest.raises(TypeError, match="same sequence type"):
        nest.assert_same_structure([1, 2], (1, 2))
    nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(ValueError, match="same set of keys"):
        nest.assert_same_structure({"a": 1}, {"b": 1})


def test_map_structure():
    assert nest.map_structure(lambda a, b: a + b, [1, {"k": 2}], [10, {"k": 20}]) == \
        [11, {"k": 22}]
    assert nest.is_nested(Point(1, 2)) and not nest.is_nested("ab")
