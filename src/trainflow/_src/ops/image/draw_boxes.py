"""`tf.image.draw_bounding_boxes`: DrawBoundingBoxes and DrawBoundingBoxesV2 (with a
colour table), TF's kernel: one-pixel outlines at the truncated corners
(box * (size - 1)), clamped to the image, inverted or outside boxes skipped, colours
cycling through the table (TF's default table of 10 colours when none is given)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op

__all__ = ["draw_bounding_boxes"]

_DEFAULT_COLORS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                   [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def _color_table(colors, depth):
    if colors is not None:
        colors = np.asarray(colors, np.float32)
        if colors.ndim != 2:
            raise errors.InvalidArgumentError(None, None, "colors must be a 2-D matrix")
        if colors.shape[1] < depth:
            raise errors.InvalidArgumentError(
                None, None, f"colors must have equal or more channels than the image "
                            f"provided: {colors.shape}")
        if colors.size:
            return [list(row) + [0.0] * (4 - len(row)) for row in colors[:, :4]]
    table = [list(c) for c in _DEFAULT_COLORS]
    if depth == 1:
        for c in table:
            c[0] = 1
    return table


def _draw(images, boxes, colors=None):
    images = np.asarray(images)
    if images.ndim != 4:
        raise errors.InvalidArgumentError(None, None, "The rank of the images should be 4")
    batch, height, width, depth = images.shape
    boxes = np.asarray(boxes, np.float32)
    if boxes.ndim != 3 or boxes.shape[0] != batch or boxes.shape[2] != 4:
        raise errors.InvalidArgumentError(
            None, None, "boxes must be of shape [batch, num_boxes, 4]")
    table = _color_table(colors, depth)
    canvas = images.copy()
    for b in range(batch):
        for bb in range(boxes.shape[1]):
            color = np.array(table[bb % len(table)][:depth], np.float32).astype(images.dtype)
            top, left, bottom, right = (
                int(np.float32(boxes[b, bb, i]) * np.float32(size - 1))
                for i, size in ((0, height), (1, width), (2, height), (3, width)))
            if top > bottom or left > right:
                continue
            if top >= height or bottom < 0 or left >= width or right < 0:
                continue
            t, btm = max(top, 0), min(bottom, height - 1)
            lft, rgt = max(left, 0), min(right, width - 1)
            if top >= 0:
                canvas[b, top, lft:rgt + 1] = color
            if bottom < height:
                canvas[b, bottom, lft:rgt + 1] = color
            if left >= 0:
                canvas[b, t:btm + 1, left] = color
            if right < width:
                canvas[b, t:btm + 1, right] = color
    return canvas


def _shape_fn(op):
    shape = op._inputs[0]._shape.with_rank(4)
    if shape._dims is not None and shape._dims[3] not in (None, 1, 3, 4):
        raise ValueError("The size of the last dimension of images must be 1, 3 or 4, got "
                         f"{shape._dims[3]}")
    boxes = op._inputs[1]._shape.with_rank(3)
    if boxes._dims is not None and boxes._dims[2] not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {boxes._dims[2]} for the boxes of "
                         f"'{op.name}'")
    return [shape]


register_op("DrawBoundingBoxes", inputs=["images: T", "boxes: float"], outputs=["output: T"],
            attrs=["T: {float, half} = DT_FLOAT"], shape_fn=_shape_fn,
            kernel=lambda images, boxes, *, T: _draw(images, boxes))
register_op("DrawBoundingBoxesV2", inputs=["images: T", "boxes: float", "colors: float"],
            outputs=["output: T"], attrs=["T: {float, half} = DT_FLOAT"], shape_fn=_shape_fn,
            kernel=lambda images, boxes, colors, *, T: _draw(images, boxes, colors))

# TF marks DrawBoundingBoxes not differentiable and registers nothing for the V2 op.
NotDifferentiable("DrawBoundingBoxes")


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """[batch, h, w, depth] float images with the outlines of [batch, n, 4] boxes
    ([y_min, x_min, y_max, x_max], relative) drawn over them."""
    if colors is None:
        return apply_op("DrawBoundingBoxes", images=images, boxes=boxes, name=name).outputs[0]
    return apply_op("DrawBoundingBoxesV2", images=images, boxes=boxes, colors=colors,
                    name=name).outputs[0]
