"""`tf.image.non_max_suppression_padded`: greedy non-max suppression whose indices are
zero-padded to max_output_size, for one image ([num_boxes, 4]) or a batch
([..., num_boxes, 4]), with the count of valid indices. Each image runs the
NonMaxSuppressionV4 op (TF 2.21 runs an equivalent tiled algorithm in a function; the
selections are the same greedy ones)."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import expand_dims, reshape, shape
from trainflow._src.ops.control_flow.functional_ops import map_fn

__all__ = ["non_max_suppression_padded"]


def _one_image(boxes, scores, max_output_size, iou_threshold, score_threshold):
    op = apply_op("NonMaxSuppressionV4", boxes=boxes, scores=scores,
                  max_output_size=max_output_size, iou_threshold=iou_threshold,
                  score_threshold=score_threshold, pad_to_max_output_size=True)
    return op.outputs[0], op.outputs[1]


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """(indices, num_valid): greedy non-max suppression; with pad_to_max_output_size the
    indices are zero-padded to max_output_size (required for batched boxes).
    sorted_input, canonicalized_coordinates and tile_size are TF's speed hints; the
    selections do not depend on them when their promises hold."""
    del sorted_input, canonicalized_coordinates, tile_size
    with name_scope(name, "non_max_suppression_padded"):
        boxes = convert_to_tensor(boxes, name="boxes")
        scores = convert_to_tensor(scores, name="scores")
        if not pad_to_max_output_size:
            if boxes.get_shape().rank is not None and boxes.get_shape().rank > 2:
                raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size})"
                                 " must be True for batched input")
        max_output_size = convert_to_tensor(max_output_size, dtype=dtypes.int32,
                                            name="max_output_size")
        iou_threshold = convert_to_tensor(iou_threshold, dtype=boxes.dtype,
                                          name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, dtype=boxes.dtype,
                                            name="score_threshold")
        rank = boxes.get_shape().rank
        if rank == 2:
            idx, valid = _one_image(boxes, scores, max_output_size, iou_threshold,
                                    score_threshold)
            if not pad_to_max_output_size:
                idx = idx[:valid]
            return idx, valid
        box_shape = shape(boxes)
        flat_boxes = reshape(boxes, concat([[-1], box_shape[-2:]], 0))
        flat_scores = reshape(scores, concat([[-1], box_shape[-2:-1]],
                                                                 0))
        idx, valid = map_fn(
            lambda pair: _one_image(pair[0], pair[1], max_output_size, iou_threshold,
                                    score_threshold),
            (flat_boxes, flat_scores), dtype=(dtypes.int32, dtypes.int32))
        batch = box_shape[:-2]
        idx = reshape(
            idx, concat([batch, expand_dims(max_output_size, 0)], 0))
        valid = reshape(valid, batch)
        return idx, valid
