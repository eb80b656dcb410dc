"""`tf.image.total_variation`: the sum of absolute differences between neighbouring
pixels, per image (a measure of noise used as a loss)."""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions

__all__ = ["total_variation"]


def total_variation(images, name=None):
    """Total variation of a [height, width, channels] image (a scalar) or of a
    [batch, height, width, channels] batch (one value per image).

    Raises:
      ValueError: for images of another (or unknown) rank.
    """
    with get_default_graph().name_scope(name or "total_variation"):
        images = convert_to_tensor(images, name="images")
        ndims = images.shape.rank
        if ndims == 3:
            dif_rows = images[1:, :, :] - images[:-1, :, :]
            dif_cols = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif ndims == 4:
            dif_rows = images[:, 1:, :, :] - images[:, :-1, :, :]
            dif_cols = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (reductions.reduce_sum(arith.abs(dif_rows), axis=axis) +
                reductions.reduce_sum(arith.abs(dif_cols), axis=axis))
