"""How a DT_VARIANT value becomes a `VariantTensorDataProto` and back (SerializeTensor /
ParseTensor of a variant tensor). A variant kind that can travel registers its TF type
name here with a decoder; its objects say how they encode:
`obj.variant_encode() -> (type_name, metadata bytes)`."""
from trainflow._src.framework import errors

_DECODERS = {}


def register(type_name, decode):
    """`decode(metadata bytes) -> object` reads values of TF variant type `type_name`."""
    _DECODERS[type_name] = decode


def encode(value):
    """(type_name, metadata) of a variant element; InvalidArgumentError if it cannot be
    serialized."""
    encoder = getattr(value, "variant_encode", None)
    if encoder is None:
        raise errors.InvalidArgumentError(
            None, None, f"A variant holding {type(value).__name__} cannot be serialized")
    return encoder()


def decode(type_name, metadata):
    """The object a serialized variant element holds; InvalidArgumentError for a type
    name nothing registered."""
    decoder = _DECODERS.get(type_name)
    if decoder is None:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot parse a variant of type '{type_name}'")
    return decoder(metadata)
