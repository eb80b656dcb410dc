"""tf.compat helpers: text/bytes/path conversions, type tuples, forward compatibility."""
import pathlib

import numpy as np
import pytest

from trainflow import compat
from trainflow._src.compat.conversions import path_to_bytes
from trainflow._src.framework.tensor_shape import Dimension, TensorShape


def test_as_bytes():
    assert compat.as_bytes("h\u00e9") == b"h\xc3\xa9"
    assert compat.as_bytes("h\u00e9", encoding="latin-1") == b"h\xe9"
    assert compat.as_bytes(b"x") == b"x"
    out = compat.as_bytes(bytearray(b"ab"))
    assert out == b"ab" and type(out) is bytes
    with pytest.raises(TypeError, match=r"^Expected binary or unicode string, got 5$"):
        compat.as_bytes(5)


def test_as_text_and_as_str():
    assert compat.as_text(b"h\xc3\xa9") == "h\u00e9"
    assert compat.as_text("s") == "s"
    assert compat.as_text(b"h\xe9", encoding="latin-1") == "h\u00e9"
    assert compat.as_str is compat.as_text
    with pytest.raises(TypeError, match=r"^Expected binary or unicode string, got \[1\]$"):
        compat.as_text([1])
    with pytest.raises(UnicodeDecodeError):
        compat.as_text(b"\xff")


def test_as_str_any():
    assert compat.as_str_any(b"abc") == "abc"
    assert compat.as_str_any(12) == "12"
    assert compat.as_str_any(None) == "None"


def test_path_conversions():
    assert compat.path_to_str(pathlib.Path("./corpus")) == "corpus"
    assert compat.path_to_str("./.././Corpus") == "./.././Corpus"
    assert compat.path_to_str(7) == 7
    assert path_to_bytes(pathlib.Path("/tmp/x")) == b"/tmp/x"
    assert path_to_bytes("a") == b"a"


def test_type_tuples():
    assert compat.bytes_or_text_types == (bytes, str)
    assert isinstance(3, compat.integral_types) and isinstance(np.int8(3), compat.integral_types)
    assert not isinstance(3.0, compat.integral_types)
    assert isinstance(np.float16(1), compat.real_types) and isinstance(2, compat.real_types)
    assert not isinstance(1j, compat.real_types)
    assert isinstance(1j, compat.complex_types)
    assert isinstance(np.complex64(1), compat.complex_types)
    assert not isinstance("1", compat.complex_types)


def test_forward_compatibility():
    assert compat.forward_compatible(2099, 12, 31) is True
    with compat.forward_compatibility_horizon(2030, 1, 1):
        assert compat.forward_compatible(2031, 1, 1) is True


def test_dimension_helpers():
    assert compat.dimension_value(Dimension(3)) == 3
    assert compat.dimension_value(None) is None
    assert compat.dimension_at_index(TensorShape(None), 2).value is None
    assert compat.dimension_at_index(TensorShape([4, 5]), 1).value == 5
