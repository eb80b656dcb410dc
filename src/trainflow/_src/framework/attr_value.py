"""Op attrs: Python values <-> AttrValue protos, and what `Operation.get_attr` returns."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_shape import TensorShape


def _kind_of(op, name):
    info = op._info
    if info is not None:
        attr = info.op_def.attrs.get(name)
        if attr is not None:
            return attr.kind
    return None


def _guess_kind(value):
    if isinstance(value, dtypes.DType):
        return "type"
    if isinstance(value, TensorShape):
        return "shape"
    if isinstance(value, np.ndarray):
        return "tensor"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, (bytes, str)):
        return "string"
    if isinstance(value, (list, tuple)):
        inner = _guess_kind(value[0]) if value else "string"
        return f"list({inner})"
    if hasattr(value, "DESCRIPTOR"):
        return "proto"
    return "string"


def to_attr_value(value, kind=None):
    """Builds the AttrValue proto for a Python attr value of the given kind."""
    # lazy: keeps protobuf out of `import trainflow`
    from trainflow._src.protos import attr_value_pb2
    av = attr_value_pb2.AttrValue()
    kind = kind or _guess_kind(value)
    if kind == "proto":
        if value.DESCRIPTOR.name == "AttrValue":
            av.CopyFrom(value)
        elif value.DESCRIPTOR.name == "NameAttrList":
            av.func.CopyFrom(value)
        else:
            raise TypeError(f"Cannot store a {value.DESCRIPTOR.name} in an AttrValue")
        return av
    if kind.startswith("list("):
        inner = kind[5:-1]
        lst = av.list
        for v in value:
            if inner == "type":
                lst.type.append(dtypes.as_dtype(v).as_datatype_enum)
            elif inner == "shape":
                lst.shape.add().CopyFrom(TensorShape(v).as_proto())
            elif inner == "tensor":
                # lazy: keeps protobuf out of `import trainflow`
                from trainflow._src.formats.tensor_proto import make_tensor_proto
                lst.tensor.add().CopyFrom(make_tensor_proto(v))
            elif inner == "int":
                lst.i.append(int(v))
            elif inner == "float":
                lst.f.append(float(v))
            elif inner == "bool":
                lst.b.append(bool(v))
            elif inner == "func":
                lst.func.add().name = v if isinstance(v, str) else v.name
            else:
                lst.s.append(v.encode() if isinstance(v, str) else bytes(v))
        if not value:
            av.list.SetInParent()
        return av
    if kind == "type":
        av.type = dtypes.as_dtype(value).as_datatype_enum
    elif kind == "shape":
        av.shape.CopyFrom(TensorShape(value).as_proto())
    elif kind == "tensor":
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.formats.tensor_proto import make_tensor_proto
        av.tensor.CopyFrom(value if hasattr(value, "DESCRIPTOR") else make_tensor_proto(value))
    elif kind == "int":
        av.i = int(value)
    elif kind == "float":
        av.f = float(value)
    elif kind == "bool":
        av.b = bool(value)
    elif kind == "func":
        if hasattr(value, "DESCRIPTOR"):
            av.func.CopyFrom(value)
        else:
            av.func.name = value if isinstance(value, str) else value.name
    else:
        av.s = value.encode() if isinstance(value, str) else bytes(value)
    return av


def from_attr_value(av, kind=None):
    """The Python value (as kernels see it) of an AttrValue proto."""
    which = av.WhichOneof("value")
    if which == "list":
        lst = av.list
        for field in ("type", "shape", "tensor", "i", "f", "b", "func", "s"):
            items = getattr(lst, field)
            if len(items):
                return [_scalar_from(field, x) for x in items]
        return []
    if which is None:
        return [] if kind and kind.startswith("list") else None
    return _scalar_from(which, getattr(av, which))


def _scalar_from(field, x):
    if field == "type":
        return dtypes.as_dtype(x)
    if field == "shape":
        return TensorShape(x)
    if field == "tensor":
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.formats.tensor_proto import make_ndarray
        arr = make_ndarray(x, compact_view=True)  # the proto may be untrusted (a GraphDef)
        if arr.flags.writeable:
            arr.flags.writeable = False
        return arr
    if field in ("i", "f", "b", "s"):
        return x
    if field == "func":
        return x
    if field == "placeholder":
        return x
    return x


def attr_for_get_attr(op, name):
    """`Operation.get_attr(name)` with TF's return types."""
    value = op._attrs[name]
    kind = _kind_of(op, name) or _guess_kind(value)
    if kind == "shape":
        return TensorShape(value).as_proto()
    if kind == "list(shape)":
        return [TensorShape(v).as_proto() for v in value]
    if kind == "tensor":
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.formats.tensor_proto import make_tensor_proto
        return value if hasattr(value, "DESCRIPTOR") else make_tensor_proto(value)
    if kind == "string":
        return value.encode() if isinstance(value, str) else value
    if kind == "list(string)":
        return [v.encode() if isinstance(v, str) else v for v in value]
    if kind == "func":
        if hasattr(value, "DESCRIPTOR"):
            return value
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.protos import attr_value_pb2
        return attr_value_pb2.NameAttrList(name=value if isinstance(value, str) else value.name)
    return value
