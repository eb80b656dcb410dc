"""tf.data's nest, ported from TF's python/data/util/nest_test (10 methods)."""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.data import nest


def test_flatten_and_pack():  # testFlattenAndPack
    structure = ((3, 4), 5, (6, 7, (9, 10), 8))
    flat = ["a", "b", "c", "d", "e", "f", "g", "h"]
    assert nest.flatten(structure) == [3, 4, 5, 6, 7, 9, 10, 8]
    assert nest.pack_sequence_as(structure, flat) == \
        (("a", "b"), "c", ("d", "e", ("f", "g"), "h"))
    point = collections.namedtuple("Point", ["x", "y"])
    structure = (point(x=4, y=2), ((point(x=1, y=0),),))
    flat = [4, 2, 1, 0]
    assert nest.flatten(structure) == flat
    restructured = nest.pack_sequence_as(structure, flat)
    assert restructured == structure
    assert (restructured[0].x, restructured[0].y) == (4, 2)
    assert (restructured[1][0][0].x, restructured[1][0][0].y) == (1, 0)
    assert nest.flatten(5) == [5]
    assert nest.flatten(np.array([5])) == [np.array([5])]
    assert nest.pack_sequence_as(5, ["a"]) == "a"
    assert nest.pack_sequence_as("scalar", [np.array([5])]) == np.array([5])
    with pytest.raises(ValueError, match="Structure is a scalar"):
        nest.pack_sequence_as("scalar", [4, 5])
    with pytest.raises(TypeError, match="flat_sequence"):
        nest.pack_sequence_as([4, 5], "bad_sequence")
    with pytest.raises(ValueError):
        nest.pack_sequence_as([5, 6, [7, 8]], ["a", "b", "c"])


def test_flatten_dict_order():  # testFlattenDictOrder
    ordered = collections.OrderedDict([("d", 3), ("b", 1), ("a", 0), ("c", 2)])
    assert nest.flatten(ordered) == [0, 1, 2, 3]
    assert nest.flatten({"d": 3, "b": 1, "a": 0, "c": 2}) == [0, 1, 2, 3]


def test_pack_dict_order():  # testPackDictOrder
    ordered = collections.OrderedDict([("d", 0), ("b", 0), ("a", 0), ("c", 0)])
    got = nest.pack_sequence_as(ordered, [0, 1, 2, 3])
    assert got == collections.OrderedDict([("d", 3), ("b", 1), ("a", 0), ("c", 2)])
    assert list(got) == ["d", "b", "a", "c"]
    assert nest.pack_sequence_as({"d": 0, "b": 0, "a": 0, "c": 0}, [0, 1, 2, 3]) == \
        {"d": 3, "b": 1, "a": 0, "c": 2}


def test_flatten_and_pack_with_dicts():  # testFlattenAndPack_withDicts
    named = collections.namedtuple("A", ("b", "c"))
    mess = ("z", named(3, 4), {"c": (1, collections.OrderedDict([("b", 3), ("a", 2)])),
                               "b": 5}, 17)
    flattened = nest.flatten(mess)
    assert flattened == ["z", 3, 4, 5, 1, 2, 3, 17]
    structure = (14, named("a", True),
                 {"c": (0, collections.OrderedDict([("b", 9), ("a", 8)])), "b": 3},
                 "hi everybody")
    unflattened = nest.pack_sequence_as(structure, flattened)
    assert unflattened == mess
    assert isinstance(unflattened[2]["c"][1], collections.OrderedDict)
    assert list(unflattened[2]["c"][1]) == ["b", "a"]


def test_is_sequence():  # testIsSequence
    assert not nest.is_sequence("1234")
    assert not nest.is_sequence([1, 3, [4, 5]])
    assert nest.is_sequence(((7, 8), (5, 6)))
    assert not nest.is_sequence([])
    assert not nest.is_sequence({1, 2})
    with tf.Graph().as_default():
        ones = tf.ones([2, 3])
        assert not nest.is_sequence(ones)
        assert not nest.is_sequence(tf.tanh(ones))
    assert not nest.is_sequence(np.ones((4, 5)))
    assert nest.is_sequence({"foo": 1, "bar": 2})
    assert not nest.is_sequence(tf.SparseTensorValue([[0]], [1], [1]))


def test_assert_same_structure():  # testAssertSameStructure
    structure1 = (((1, 2), 3), 4, (5, 6))
    structure2 = ((("foo1", "foo2"), "foo3"), "foo4", ("foo5", "foo6"))
    nest.assert_same_structure(structure1, structure2)
    nest.assert_same_structure("abc", 1.0)
    nest.assert_same_structure("abc", np.array([0, 1]))
    with tf.Graph().as_default():
        nest.assert_same_structure("abc", tf.constant([0, 1]))
    for a, b in ((structure1, ("spam", "eggs")), ((0, 1), np.array([0, 1])), (0, (0, 1))):
        with pytest.raises(ValueError, match="don't have the same number of elements"):
            nest.assert_same_structure(a, b)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        nest.assert_same_structure(structure1, (((1, 2), 3), 4, 5, (6,)))
    named_0 = collections.namedtuple("named_0", ("a", "b"))
    named_1 = collections.namedtuple("named_1", ("a", "b"))
    with pytest.raises(TypeError):
        nest.assert_same_structure((0, 1), named_0("a", "b"))
    nest.assert_same_structure(named_0(3, 4), named_0("a", "b"))
    with pytest.raises(TypeError):
        nest.assert_same_structure(named_0(3, 4), named_1(3, 4))
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        nest.assert_same_structure(named_0(3, 4), named_0((3,), 4))
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        nest.assert_same_structure(((3,), 4), (3, (4,)))
    as_dict = {"a": ((1, 2), 3), "b": 4, "c": (5, 6)}
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        nest.assert_same_structure(structure1, as_dict)
    nest.assert_same_structure(structure1, structure2, check_types=False)
    nest.assert_same_structure(structure1, as_dict, check_types=False)


def test_map_structure():  # testMapStructure
    structure1 = (((1, 2), 3), 4, (5, 6))
    structure2 = (((7, 8), 9), 10, (11, 12))
    plus1 = nest.map_structure(lambda x: x + 1, structure1)
    nest.assert_same_structure(structure1, plus1)
    assert nest.flatten(plus1) == [2, 3, 4, 5, 6, 7]
    assert nest.map_structure(lambda x, y: x + y, structure1, structure2) == \
        (((8, 10), 12), 14, (16, 18))
    assert nest.map_structure(lambda x: x - 1, 4) == 3
    assert nest.map_structure(lambda x, y: x + y, 3, 4) == 7
    with pytest.raises(TypeError, match="callable"):
        nest.map_structure("bad", plus1)
    with pytest.raises(ValueError, match="same nested structure"):
        nest.map_structure(lambda x, y: None, 3, (3,))
    with pytest.raises(TypeError, match="same sequence type"):
        nest.map_structure(lambda x, y: None, ((3, 4), 5), {"a": (3, 4), "b": 5})
    with pytest.raises(ValueError, match="same nested structure"):
        nest.map_structure(lambda x, y: None, ((3, 4), 5), (3, (4, 5)))
    with pytest.raises(ValueError, match="same nested structure"):
        nest.map_structure(lambda x, y: None, ((3, 4), 5), (3, (4, 5)), check_types=False)
    with pytest.raises(ValueError, match="Only valid keyword argument"):
        nest.map_structure(lambda x: None, structure1, foo="a")
    with pytest.raises(ValueError, match="Only valid keyword argument"):
        nest.map_structure(lambda x: None, structure1, check_types=False, foo="a")


def test_assert_shallow_structure():  # testAssertShallowStructure
    with pytest.raises(ValueError, match=r"The two structures don't have the same sequence "
                                         r"length. Input structure has length 2, while "
                                         r"shallow structure has length 3."):
        nest.assert_shallow_structure(("a", "b", "c"), ("a", "b"))
    inp_ab1, inp_ab2 = ((1, 1), (2, 2)), {"a": (1, 1), "b": (2, 2)}
    with pytest.raises(TypeError, match=r"The two structures don't have the same sequence "
                                        r"type. Input structure has type <class 'tuple'>, "
                                        r"while shallow structure has type <class 'dict'>."):
        nest.assert_shallow_structure(inp_ab2, inp_ab1)
    nest.assert_shallow_structure(inp_ab2, inp_ab1, check_types=False)
    with pytest.raises(ValueError, match=r"The two structures don't have the same keys. Input "
                                         r"structure has keys \['c'\], while shallow "
                                         r"structure has keys \['d'\]."):
        nest.assert_shallow_structure({"a": (1, 1), "b": {"d": (2, 2)}},
                                      {"a": (1, 1), "b": {"c": (2, 2)}})


def test_flatten_up_to():  # testFlattenUpTo
    shallow = ((True, True), (False, True))
    assert nest.flatten_up_to(shallow, (((2, 2), (3, 3)), ((4, 9), (5, 5)))) == \
        [(2, 2), (3, 3), (4, 9), (5, 5)]
    assert nest.flatten_up_to(shallow, shallow) == [True, True, False, True]
    input_tree = (("a", 1), (("b", 2), (("c", 3), (("d", 4)))))
    shallow = ("level_1", ("level_2", ("level_3", ("level_4"))))
    assert nest.flatten_up_to(shallow, input_tree) == [("a", 1), ("b", 2), ("c", 3), ("d", 4)]
    assert nest.flatten(input_tree) == ["a", 1, "b", 2, "c", 3, "d", 4]
    for input_tree, shallow in ((["input_tree"], "shallow_tree"),
                                (("input_tree_0", "input_tree_1"), "shallow_tree"),
                                ((0,), 9), ((0, 1), 9), ("input_tree", "shallow_tree"),
                                (0, 0)):
        assert nest.flatten_up_to(shallow, input_tree) == [input_tree]
        assert nest.flatten_up_to(shallow, shallow) == [shallow]
    for input_tree, shallow, kind in (("input_tree", ("shallow_tree",), "str"),
                                      ("input_tree", ("shallow_tree_9", "shallow_tree_8"), "str"),
                                      (0, (9,), "int"), (0, (9, 8), "int")):
        with pytest.raises(TypeError, match=r"If shallow structure is a sequence, input must "
                                            rf"also be a sequence. Input has type: <class "
                                            rf"'{kind}'>."):
            nest.flatten_up_to(shallow, input_tree)
        assert nest.flatten_up_to(shallow, shallow) == list(shallow)
    shallow = {"a": (True, True), "b": (False, True)}
    assert nest.flatten_up_to(shallow, {"a": ((2, 2), (3, 3)), "b": ((4, 9), (5, 5))}) == \
        [(2, 2), (3, 3), (4, 9), (5, 5)]
    assert nest.flatten_up_to(shallow, shallow) == [True, True, False, True]


def test_map_structure_up_to():  # testMapStructureUpTo
    ab_tuple = collections.namedtuple("ab_tuple", "a, b")
    op_tuple = collections.namedtuple("op_tuple", "add, mul")
    inp_val = ab_tuple(a=2, b=3)
    inp_ops = ab_tuple(a=op_tuple(add=1, mul=2), b=op_tuple(add=2, mul=3))
    out = nest.map_structure_up_to(inp_val, lambda val, ops: (val + ops.add) * ops.mul,
                                   inp_val, inp_ops)
    assert (out.a, out.b) == (6, 15)
    data = ((2, 4, 6, 8), ((1, 3, 5, 7, 9), (3, 5, 7)))
    names = ("evens", ("odds", "primes"))
    out = nest.map_structure_up_to(names, lambda name, sec: f"first_{len(sec)}_{name}",
                                   names, data)
    assert out == ("first_4_evens", ("first_5_odds", "first_3_primes"))
