"""`tf.image.combined_non_max_suppression`: the CombinedNonMaxSuppression op (greedy
NMS per batch item and class, then the best detections over all classes, zero-padded;
kernels/image/non_max_suppression_op.cc). No gradient, as in TF."""
import collections

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value

__all__ = ["combined_non_max_suppression"]

_Result = collections.namedtuple(
    "CombinedNonMaxSuppression",
    ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"])


def _detections(per_class, total, num_classes, pad_per_class):
    if pad_per_class:
        return min(per_class * num_classes, total)
    return total


def _shape_fn(op):
    boxes = op._inputs[0]._shape.with_rank(4)
    scores = op._inputs[1]._shape.with_rank(3)
    for t in op._inputs[2:]:
        t._shape.with_rank(0)
    batch = TensorShape([None if boxes._dims is None else boxes._dims[0]]).merge_with(
        TensorShape([None if scores._dims is None else scores._dims[0]]))._dims[0]
    per_class = constant_value(op._inputs[2])
    total = constant_value(op._inputs[3])
    for k, value in ((2, per_class), (3, total)):
        if value is not None and int(value) < 0:
            raise ValueError(f"Dimension size, given by scalar input {k}, must be "
                             f"non-negative but is {int(value)}")
    if total is not None and int(total) == 0:
        raise ValueError("max_total_size should be > 0")
    classes = scores._dims[2] if scores._dims is not None else None
    q = boxes._dims[2] if boxes._dims is not None else None
    if None not in (q, classes) and q != 1 and q != classes:
        raise ValueError("third dimension of boxes must be either 1 or num classes")
    n = None
    if total is not None and not op._attrs["pad_per_class"]:
        n = int(total)
    elif None not in (total, per_class, classes):
        n = _detections(int(per_class), int(total), int(classes), True)
    return [TensorShape([batch, n, 4]), TensorShape([batch, n]), TensorShape([batch, n]),
            TensorShape([batch])]


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def combined_nms_kernel(boxes, scores, max_output_size_per_class, max_total_size,
                        iou_threshold, score_threshold, *, pad_per_class, clip_boxes):
    boxes = np.asarray(boxes, np.float32)
    scores = np.asarray(scores, np.float32)
    if boxes.ndim != 4:
        raise _invalid(f"boxes must be 4-D[{','.join(map(str, boxes.shape))}]")
    if scores.ndim != 3:
        raise _invalid(f"scores must be 3-D[{','.join(map(str, scores.shape))}]")
    if np.ndim(max_output_size_per_class) != 0:
        raise _invalid("max_size_per_class must be 0-D")
    if int(max_output_size_per_class) <= 0:
        raise _invalid("max_size_per_class must be positive")
    if np.ndim(max_total_size) != 0 or int(max_total_size) <= 0:
        raise _invalid("max_total_size must be > 0")
    if not 0 <= float(iou_threshold) <= 1:
        raise _invalid("iou_threshold must be in [0, 1]")
    batch, num_boxes, q, _ = boxes.shape
    num_classes = scores.shape[2]
    if q != 1 and q != num_classes:
        raise _invalid("third dimension of boxes must be either 1 or num classes")
    if boxes.shape[3] != 4:
        raise _invalid("boxes must have 4 columns")
    per_class = int(max_output_size_per_class)
    total = int(max_total_size)
    n = _detections(per_class, total, num_classes, pad_per_class)
    out_boxes = np.zeros((batch, n, 4), np.float32)
    out_scores = np.zeros((batch, n), np.float32)
    out_classes = np.zeros((batch, n), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []  # (score, class, rank, box index): class-major, then selection order
        for c in range(num_classes):
            cbox = boxes[b, :, 0 if q == 1 else c]
            iou = _iou(cbox)
            chosen = _per_class(iou, scores[b, :, c], per_class, np.float32(iou_threshold),
                                np.float32(score_threshold))
            found += [(s, c, k, i) for k, (i, s) in enumerate(chosen)]
        order = sorted(found, key=lambda r: -r[0])
        count = min(len(found), n)
        valid[b] = count
        for k, (s, c, _, i) in enumerate(order[:count]):
            box = boxes[b, i, 0 if q == 1 else c]
            out_boxes[b, k] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, k] = s
            out_classes[b, k] = c
    return out_boxes, out_scores, out_classes, valid


def _push(heap, item):
    # libstdc++'s push_heap: TF's std::priority_queue decides the order of equal scores.
    hole = len(heap)
    heap.append(item)
    _sift_up(heap, hole, 0, item)


def _sift_up(heap, hole, top, item):
    parent = (hole - 1) // 2
    while hole > top and heap[parent][0] < item[0]:
        heap[hole] = heap[parent]
        hole, parent = parent, (parent - 1) // 2
    heap[hole] = item


def _pop(heap):
    # libstdc++'s pop_heap (__adjust_heap), then drop the last slot.
    best, item = heap[0], heap[-1]
    n = len(heap) - 1
    hole = child = 0
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if heap[child][0] < heap[child - 1][0]:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2 and n > 0:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    if n > 0:
        _sift_up(heap, hole, 0, item)
    heap.pop()
    return best


def _per_class(iou, scores, size, threshold, score_threshold):
    """[(box index, score)] TF's DoNMSPerClass selects, in selection order."""
    heap = []
    for i, s in enumerate(scores):
        if s > score_threshold:
            _push(heap, (s, i))
    selected = []
    while len(selected) < size and heap:
        s, i = _pop(heap)
        if all(iou(i, j) <= threshold for j, _ in reversed(selected)):
            selected.append((i, s))
    return selected


def _iou(b):
    ymin, ymax = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    xmin, xmax = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    area = (ymax - ymin) * (xmax - xmin)

    def iou(i, j):
        if area[i] <= 0 or area[j] <= 0:
            return np.float32(0.0)
        h = max(min(ymax[i], ymax[j]) - max(ymin[i], ymin[j]), np.float32(0.0))
        w = max(min(xmax[i], xmax[j]) - max(xmin[i], xmin[j]), np.float32(0.0))
        inter = np.float32(h * w)
        return np.float32(inter / np.float32(area[i] + area[j] - inter))
    return iou


register_op("CombinedNonMaxSuppression",
            inputs=["boxes: float", "scores: float", "max_output_size_per_class: int32",
                    "max_total_size: int32", "iou_threshold: float", "score_threshold: float"],
            outputs=["nmsed_boxes: float", "nmsed_scores: float", "nmsed_classes: float",
                     "valid_detections: int32"],
            attrs=["pad_per_class: bool = false", "clip_boxes: bool = true"],
            shape_fn=_shape_fn, kernel=combined_nms_kernel)


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections): non-max suppression
    per batch item and class on [batch, boxes, q, 4] boxes and [batch, boxes, classes]
    scores, keeping the max_total_size best detections over all classes."""
    with name_scope(name, "combined_non_max_suppression"):
        iou_threshold = convert_to_tensor(iou_threshold, dtype=dtypes.float32,
                                          name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, dtype=dtypes.float32,
                                            name="score_threshold")
        max_total_size = convert_to_tensor(max_total_size)
        return _Result(*apply_op("CombinedNonMaxSuppression", boxes=boxes, scores=scores,
                              max_output_size_per_class=max_output_size_per_class,
                              max_total_size=max_total_size, iou_threshold=iou_threshold,
                              score_threshold=score_threshold, pad_per_class=pad_per_class,
                              clip_boxes=clip_boxes).outputs)
