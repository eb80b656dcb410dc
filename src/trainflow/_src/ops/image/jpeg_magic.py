"""`tf.image.is_jpeg`: a test of the JPEG magic bytes."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.ops.math import arith
from trainflow._src.ops.string.string_ops import substr

__all__ = ["is_jpeg"]


def is_jpeg(contents, name=None):
    """A bool tensor: whether `contents` starts with JPEG's magic bytes FF D8 FF."""
    with name_scope(name, "is_jpeg"):
        return arith.equal(substr(contents, 0, 3), b"\xff\xd8\xff", name=name)
