"""`tf.image.non_max_suppression`, `non_max_suppression_with_scores` (soft-NMS) and
`non_max_suppression_overlaps`: NonMaxSuppressionV3, NonMaxSuppressionV5 and
NonMaxSuppressionWithOverlaps, and NonMaxSuppressionV4 for the padded form (registrations
with TF's shape functions, kernels in `nms_kernels`; no gradients, as in TF)."""
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.image import nms_kernels

__all__ = ["non_max_suppression", "non_max_suppression_overlaps",
           "non_max_suppression_with_scores"]


def _shape_fn(square):
    def shape_fn(op):
        first = op._inputs[0]._shape.with_rank(2)
        scores = op._inputs[1]._shape.with_rank(1)
        for t in op._inputs[2:]:
            t._shape.with_rank(0)
        if first._dims is not None:
            other = first._dims[0] if square else 4
            TensorShape([first._dims[0]]).merge_with(scores)
            TensorShape([other]).merge_with(TensorShape([first._dims[1]]))
        n = None
        if op._attrs.get("pad_to_max_output_size"):
            value = constant_value(op._inputs[2])
            n = None if value is None else int(value)
        shapes = [TensorShape([n])]
        if len(op.outputs) == 3:
            shapes += [TensorShape([n]), TensorShape([])]
        elif len(op.outputs) == 2:
            shapes += [TensorShape([])]
        return shapes
    return shape_fn


_THRESH = ["max_output_size: int32"]
register_op("NonMaxSuppressionV3",
            inputs=["boxes: T", "scores: T"] + _THRESH + ["iou_threshold: T_threshold",
                                                          "score_threshold: T_threshold"],
            outputs=["selected_indices: int32"],
            attrs=["T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT"],
            shape_fn=_shape_fn(False), kernel=nms_kernels.nms_v3)
register_op("NonMaxSuppressionV4",
            inputs=["boxes: T", "scores: T"] + _THRESH + ["iou_threshold: T_threshold",
                                                          "score_threshold: T_threshold"],
            outputs=["selected_indices: int32", "valid_outputs: int32"],
            attrs=["T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT",
                   "pad_to_max_output_size: bool = false"],
            shape_fn=_shape_fn(False), kernel=nms_kernels.nms_v4)
register_op("NonMaxSuppressionV5",
            inputs=["boxes: T", "scores: T"] + _THRESH + ["iou_threshold: T",
                                                          "score_threshold: T",
                                                          "soft_nms_sigma: T"],
            outputs=["selected_indices: int32", "selected_scores: T", "valid_outputs: int32"],
            attrs=["T: {half, float} = DT_FLOAT", "pad_to_max_output_size: bool = false"],
            shape_fn=_shape_fn(False), kernel=nms_kernels.nms_v5)
register_op("NonMaxSuppressionWithOverlaps",
            inputs=["overlaps: float", "scores: float"] + _THRESH + [
                "overlap_threshold: float", "score_threshold: float"],
            outputs=["selected_indices: int32"], shape_fn=_shape_fn(True),
            kernel=nms_kernels.nms_overlaps)
# TF marks only the overlaps form not differentiable; V3 and V5 have no gradient entry.
NotDifferentiable("NonMaxSuppressionWithOverlaps")


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Indices of at most max_output_size boxes ([y1, x1, y2, x2] rows) chosen greedily
    by score, dropping those whose IoU with a chosen one exceeds iou_threshold."""
    with name_scope(name, "non_max_suppression"):
        iou_threshold = convert_to_tensor(iou_threshold, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, name="score_threshold")
        return apply_op("NonMaxSuppressionV3", boxes=boxes, scores=scores,
                        max_output_size=max_output_size, iou_threshold=iou_threshold,
                        score_threshold=score_threshold).outputs[0]


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """(indices, scores) of non-max suppression; with soft_nms_sigma > 0 Gaussian
    soft-NMS lowers the scores of overlapping boxes instead of dropping them."""
    with name_scope(name, "non_max_suppression_with_scores"):
        iou_threshold = convert_to_tensor(iou_threshold, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, name="score_threshold")
        soft_nms_sigma = convert_to_tensor(soft_nms_sigma, name="soft_nms_sigma")
        op = apply_op("NonMaxSuppressionV5", boxes=boxes, scores=scores,
                      max_output_size=max_output_size, iou_threshold=iou_threshold,
                      score_threshold=score_threshold, soft_nms_sigma=soft_nms_sigma,
                      pad_to_max_output_size=False)
        return op.outputs[0], op.outputs[1]


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Non-max suppression over a given [n, n] overlap matrix."""
    with name_scope(name, "non_max_suppression_overlaps"):
        overlap_threshold = convert_to_tensor(overlap_threshold, name="overlap_threshold")
        return apply_op("NonMaxSuppressionWithOverlaps", overlaps=overlaps, scores=scores,
                        max_output_size=max_output_size, overlap_threshold=overlap_threshold,
                        score_threshold=score_threshold).outputs[0]
