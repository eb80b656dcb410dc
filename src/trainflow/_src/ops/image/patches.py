"""Patch extraction: ExtractImagePatches (`tf.image.extract_patches`,
`extract_image_patches`) and ExtractVolumePatches (`tf.extract_volume_patches`).

The gradient scatters the incoming patches back onto the input, as TF's does: the op
run on an image of 1-based cell indices says which input cell each patch entry came
from (0: padding, dropped), and UnsortedSegmentSum adds the entries up per cell.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array import cast, join, layout, shape
from trainflow._src.ops.array.create import range as range_op
from trainflow._src.ops.array.shape_util import UNKNOWN, dims_of, shape_of, with_rank
from trainflow._src.ops.image import patches_kernels as K
from trainflow._src.ops.math import reductions, segment
from trainflow._src.ops.nn.conv import lookup_alias

__all__ = ["extract_image_patches", "extract_patches", "extract_volume_patches"]

_TYPES = ("{bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, "
          "uint32, uint64, complex64, complex128, bool}")
_VOLUME_TYPES = ("{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                 "uint32, uint64}")
_PADDING = 'padding: {"SAME", "VALID"}'


def _patches_shape(rank, rated):
    def shape_fn(op):
        dims = dims_of(op.inputs[0])
        if dims is None:
            return [UNKNOWN]
        dims = with_rank(dims, rank)
        k = list(op.get_attr("ksizes"))
        s = list(op.get_attr("strides"))
        r = list(op.get_attr("rates")) if rated else [1] * rank
        for name, values in (("ksizes", k), ("strides", s), ("rates", r)):
            if len(values) != rank:
                raise ValueError(f"{name} input must be a list of length {rank}")
            if values[0] != 1 or values[-1] != 1:
                raise ValueError(f"{name} is only supported across spatial dims.")
        out = [dims[0]]
        for i in range(1, rank - 1):
            out.append(None if dims[i] is None else
                       K.window_geometry(dims[i], k[i], s[i], r[i], op.get_attr("padding"))[0])
        depth = dims[-1]
        kprod = 1
        for v in k[1:-1]:
            kprod *= v
        out.append(None if depth is None else depth * kprod)
        return [shape_of(tuple(out))]
    return shape_fn


register_op("ExtractImagePatches", inputs=["images: T"], outputs=["patches: T"],
            attrs=["ksizes: list(int) >= 4", "strides: list(int) >= 4",
                   "rates: list(int) >= 4", f"T: {_TYPES}", _PADDING],
            shape_fn=_patches_shape(4, True), kernel=K.extract_image_patches_kernel)
register_op("ExtractVolumePatches", inputs=["input: T"], outputs=["patches: T"],
            attrs=["ksizes: list(int) >= 5", "strides: list(int) >= 5",
                   f"T: {_VOLUME_TYPES}", _PADDING],
            shape_fn=_patches_shape(5, False), kernel=K.extract_volume_patches_kernel)


def _scatter_back(op, grad, attrs):
    x_shape = shape.shape(op.inputs[0], out_type=dtypes.int64)
    batch, depth = x_shape[0], x_shape[-1]
    spatial = x_shape[1:-1]
    cells = reductions.reduce_prod(spatial)
    # float32 indices, as TF's gradient uses: exact below 2**24 cells, and a type every
    # CPU kernel of the op takes.
    index_image = shape.reshape(range_op(1, cells + 1, dtype=dtypes.float32),
                                join.concat([[1], spatial, [1]], 0))
    first = "images" if op.type == "ExtractImagePatches" else "input"
    index_patches = apply_op(op.type, **{first: index_image}, **attrs).outputs[0]
    ids = shape.reshape(cast.cast(index_patches, dtypes.int64), [-1]) - 1  # padding: -1
    entries = shape.reshape(grad, join.stack([batch, -1, depth]))
    entries = layout.transpose(entries, [1, 0, 2])
    summed = segment.unsorted_segment_sum(entries, ids, cells)
    summed = shape.reshape(summed, join.concat([spatial, [batch, depth]], 0))
    rank = len(attrs["ksizes"])
    return layout.transpose(summed, [rank - 2] + list(range(rank - 2)) + [rank - 1])


@RegisterGradient("ExtractImagePatches")
def _extract_image_patches_grad(op, grad):
    attrs = {n: op.get_attr(n) for n in ("ksizes", "strides", "rates", "padding")}
    return _scatter_back(op, grad, attrs)


@RegisterGradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op, grad):
    attrs = {n: op.get_attr(n) for n in ("ksizes", "strides", "padding")}
    return _scatter_back(op, grad, attrs)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Patches of images [batch, rows, cols, depth] (`tf.image.extract_patches`):
    [batch, out_rows, out_cols, size_rows * size_cols * depth].

    Args:
      sizes, strides, rates: 4 ints each, [1, rows, cols, 1]; rates dilate the window.
      padding: "SAME" or "VALID".
    """
    return apply_op("ExtractImagePatches", images=images, ksizes=list(sizes),
                    strides=list(strides), rates=list(rates), padding=padding,
                    name=name).outputs[0]


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None):
    """TF1's name of `extract_patches` (`sizes` is an alias of ksizes)."""
    ksizes = lookup_alias("sizes", sizes, "ksizes", ksizes)
    return extract_patches(images, ksizes, strides, rates, padding, name=name)


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """Patches of input [batch, planes, rows, cols, depth]: [batch, out_planes,
    out_rows, out_cols, prod(ksizes) * depth] (ksizes/strides: 5 ints, 1 at the ends)."""
    return apply_op("ExtractVolumePatches", input=input, ksizes=list(ksizes),
                    strides=list(strides), padding=padding, name=name).outputs[0]
