"""Op signatures: parses TF-style REGISTER_OP strings into argument and attr specs.

Inputs/outputs are written as in TensorFlow's op registrations:
``"x: T"``, ``"values: N * T"``, ``"ref: Ref(T)"``, ``"components: Tcomponents"``
(a type-list attr) or ``"shape: int32"`` (a fixed type). Attrs are written as
``"T: {float, double} = DT_FLOAT"``, ``"N: int >= 1"``, ``"shape: shape"``,
``"dtypes: list(type) >= 1"``.
"""
import re

from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_shape import TensorShape

_ARG_RE = re.compile(r"^\s*(\w+)\s*:\s*(?:(\w+)\s*\*\s*)?(Ref\()?\s*(\w+)\s*\)?\s*$")
# "name: kind [>= min] [= default]"; the "=" of ">=" does not start a default.
_ATTR_RE = re.compile(r"^\s*(\w+)\s*:\s*(.+?)\s*(?:(?<![<>])=\s*(.+?))?\s*$")
_TYPE_NAMES = {"float": dtypes.float32, "double": dtypes.float64, "half": dtypes.float16}


def _type_from_name(name):
    name = name.strip()
    if name.startswith("DT_"):
        name = name[3:].lower()
    return _TYPE_NAMES.get(name) or dtypes.as_dtype(name)


class ArgDef:
    """One input or output argument of an op."""

    __slots__ = ("name", "type", "type_attr", "number_attr", "type_list_attr", "is_ref")

    def __init__(self, name, type_=None, type_attr=None, number_attr=None,
                 type_list_attr=None, is_ref=False):
        self.name = name
        self.type = type_
        self.type_attr = type_attr
        self.number_attr = number_attr
        self.type_list_attr = type_list_attr
        self.is_ref = is_ref

    @property
    def is_list(self):
        return self.number_attr is not None or self.type_list_attr is not None

    def count(self, attrs):
        """How many tensors this argument holds given the op's attrs: None for a single
        tensor, else the length of the list (`N * T` or a type-list argument).

        Raises:
          KeyError: if `attrs` lacks the attr that sets the length.
        """
        if self.number_attr is not None:
            return attrs[self.number_attr]
        if self.type_list_attr is not None:
            return len(attrs[self.type_list_attr])
        return None

    def flat_count(self, attrs):
        """How many tensors this argument holds (1 for a single tensor)."""
        n = self.count(attrs)
        return 1 if n is None else n

    def dtypes(self, attrs):
        """The DTypes of this argument's tensors given the op's attrs (ref types for a
        Ref argument)."""
        if self.type_list_attr is not None:
            types = list(attrs[self.type_list_attr])
        else:
            t = self.type if self.type is not None else attrs[self.type_attr]
            types = [t] * (attrs[self.number_attr] if self.number_attr is not None else 1)
        return [t._as_ref for t in types] if self.is_ref else types


class AttrDef:
    """One attr of an op: its kind ('type', 'int', 'list(type)', ...), default and limits."""

    __slots__ = ("name", "kind", "default", "has_default", "allowed", "minimum")

    def __init__(self, name, kind, default=None, has_default=False, allowed=None, minimum=None):
        self.name = name
        self.kind = kind
        self.default = default
        self.has_default = has_default
        self.allowed = allowed
        self.minimum = minimum


def parse_arg(spec, attrs):
    """Parses ``"name: [N *] [Ref(]type_or_attr[)]"`` given the op's attr specs."""
    m = _ARG_RE.match(spec)
    if not m:
        raise ValueError(f"Bad op argument spec {spec!r}")
    name, number_attr, ref, type_word = m.groups()
    arg = ArgDef(name, number_attr=number_attr, is_ref=bool(ref))
    attr = attrs.get(type_word)
    if attr is None:
        arg.type = _type_from_name(type_word)
    elif attr.kind == "type":
        arg.type_attr = type_word
    elif attr.kind == "list(type)":
        arg.type_list_attr = type_word
    else:
        raise ValueError(f"Argument {spec!r} names attr {type_word!r} that is not a type")
    return arg


def _parse_value(kind, text):
    text = text.strip()
    if kind.startswith("list("):
        inner = kind[5:-1]
        body = text.strip("[]").strip()
        return [] if not body else [_parse_value(inner, t) for t in body.split(",")]
    if kind == "type":
        return _type_from_name(text)
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        return text == "true"
    if kind == "string":
        return text.strip("\"'").encode()
    if kind == "shape":
        if text in ("unknown_shape", "None"):
            return TensorShape(None)
        body = text.strip("[]").strip()
        return TensorShape([] if not body else [None if d.strip() in ("-1", "?") else int(d)
                                                 for d in body.split(",")])
    if kind == "func":
        return text
    if kind == "tensor":
        return None
    raise ValueError(f"Unknown attr kind {kind!r}")


def parse_attr(spec):
    """Parses ``"name: kind [>= min] = default"`` or ``"T: {float, double}"``."""
    m = _ATTR_RE.match(spec)
    if not m:
        raise ValueError(f"Bad attr spec {spec!r}")
    name, kind, default = m.groups()
    allowed = minimum = None
    if kind.startswith("{"):
        words = [w.strip() for w in kind.strip("{}").split(",")]
        if words[0].startswith(("'", '"')):
            allowed = [w.strip("'\"").encode() for w in words]
            kind = "string"
        else:
            allowed = [_type_from_name(w) for w in words]
            kind = "type"
    elif kind.startswith("list({"):
        words = kind[len("list({"):kind.index("}")].split(",")
        allowed = [_type_from_name(w) for w in words]
        rest = kind[kind.index("}") + 2:].strip()
        kind = "list(type)"
        if rest.startswith(">="):
            minimum = int(rest[2:])
    elif ">=" in kind:
        kind, minimum = kind.split(">=")
        kind, minimum = kind.strip(), int(minimum)
    has_default = default is not None
    value = _parse_value(kind, default) if has_default else None
    return AttrDef(name, kind, value, has_default, allowed, minimum)


class OpDef:
    """The parsed signature of an op type."""

    __slots__ = ("name", "inputs", "outputs", "attrs")

    def __init__(self, name, inputs=(), outputs=(), attrs=()):
        self.name = name
        self.attrs = {}
        for spec in attrs:
            a = parse_attr(spec)
            self.attrs[a.name] = a
        self.inputs = [parse_arg(s, self.attrs) for s in inputs]
        self.outputs = [parse_arg(s, self.attrs) for s in outputs]

    def output_dtypes(self, attrs):
        """The DTypes of all outputs, flattened, given the op's attrs."""
        out = []
        for arg in self.outputs:
            out.extend(arg.dtypes(attrs))
        return out


# The commonly used type sets of TF's registrations.
NUMBER_TYPES = "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, " \
               "qint32, bfloat16, uint16, complex128, half, uint32, uint64}"
REAL_NUMBER_TYPES = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
                    "half, uint32, uint64}"
FLOAT_TYPES = "{half, bfloat16, float, double}"
ALL_TYPES = "{float, double, int32, uint8, int16, int8, string, complex64, int64, bool, " \
            "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, " \
            "resource, variant, uint32, uint64}"
INDEX_TYPES = "{int32, int64}"
