"""NumPy kernels of TF's greedy non-max suppression (kernels/image/non_max_suppression_op.cc):
candidates above the score threshold taken best first (ties: lower index first), each
checked against the boxes selected since it was last checked, newest first; hard
suppression above the IoU / overlap threshold, or Gaussian soft-NMS re-queueing a
candidate whose score dropped."""
import heapq

import numpy as np

from trainflow._src.framework import errors


def _iou_fn(boxes):
    b = np.asarray(boxes, np.float32)
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


def _check(scores, max_output_size, count):
    if np.ndim(max_output_size) != 0:
        raise errors.InvalidArgumentError(None, None, "max_output_size must be 0-D, got shape "
                                          f"[{','.join(map(str, np.shape(max_output_size)))}]")
    if np.ndim(scores) != 1 or np.shape(scores)[0] != count:
        raise errors.InvalidArgumentError(
            None, None, "scores has incompatible shape")


def suppress(similarity, scores, max_output_size, threshold, score_threshold,
             soft_nms_sigma=0.0):
    """(selected indices, their scores) of TF's DoNonMaxSuppressionOp."""
    dtype = np.asarray(scores).dtype
    scores = np.asarray(scores, np.float32)
    threshold = np.float32(threshold)
    score_threshold = np.float32(score_threshold)
    sigma = np.float32(soft_nms_sigma)
    soft = sigma > 0
    scale = np.float32(-0.5) / sigma if soft else np.float32(0.0)
    heap = [(-scores[i], i, 0) for i in range(len(scores)) if scores[i] > score_threshold]
    heapq.heapify(heap)
    selected, selected_scores = [], []
    while len(selected) < int(max_output_size) and heap:
        neg, index, begin = heapq.heappop(heap)
        original = score = np.float32(-neg)
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = np.float32(similarity(index, selected[j]))
            weight = np.float32(np.exp(scale * sim * sim))
            score = np.float32(score * (weight if soft or sim <= threshold else 0.0))
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, index, len(selected)))
    return (np.array(selected, np.int32), np.array(selected_scores, np.float32).astype(dtype))


def nms_v3(boxes, scores, max_output_size, iou_threshold, score_threshold, *, T,  # noqa: N803
           T_threshold):
    boxes = np.asarray(boxes)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise errors.InvalidArgumentError(None, None, "boxes must be 2-D and have 4 columns, "
                                          f"got shape [{','.join(map(str, boxes.shape))}]")
    _check(scores, max_output_size, boxes.shape[0])
    if not 0 <= float(iou_threshold) <= 1:
        raise errors.InvalidArgumentError(None, None, "iou_threshold must be in [0, 1]")
    return suppress(_iou_fn(boxes), scores, max_output_size, iou_threshold, score_threshold)[0]


def nms_v4(boxes, scores, max_output_size, iou_threshold, score_threshold, *, T,  # noqa: N803
           T_threshold, pad_to_max_output_size):
    idx, _, valid = nms_v5(boxes, scores, max_output_size, iou_threshold, score_threshold,
                           0.0, T=T, pad_to_max_output_size=pad_to_max_output_size)
    return idx, valid


def nms_v5(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, *,
           T, pad_to_max_output_size):  # noqa: N803
    boxes = np.asarray(boxes)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise errors.InvalidArgumentError(None, None, "boxes must be 2-D and have 4 columns, "
                                          f"got shape [{','.join(map(str, boxes.shape))}]")
    _check(scores, max_output_size, boxes.shape[0])
    if not 0 <= float(iou_threshold) <= 1:
        raise errors.InvalidArgumentError(None, None, "iou_threshold must be in [0, 1]")
    if float(soft_nms_sigma) < 0:
        raise errors.InvalidArgumentError(None, None, "soft_nms_sigma must be non-negative")
    idx, sc = suppress(_iou_fn(boxes), scores, max_output_size, iou_threshold,
                       score_threshold, soft_nms_sigma)
    valid = np.int32(len(idx))
    if pad_to_max_output_size:
        n = int(max_output_size)
        idx = np.pad(idx, (0, n - len(idx)))
        sc = np.pad(sc, (0, n - len(sc)))
    return idx, sc, valid


def nms_overlaps(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    overlaps = np.asarray(overlaps, np.float32)
    if overlaps.ndim != 2 or overlaps.shape[0] != overlaps.shape[1]:
        raise errors.InvalidArgumentError(None, None, "overlaps must be a square matrix")
    _check(scores, max_output_size, overlaps.shape[0])
    return suppress(lambda i, j: overlaps[i, j], scores, max_output_size, overlap_threshold,
                    score_threshold)[0]
