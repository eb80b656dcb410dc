"""The dual loss updaters of TF's SDCA kernels (SdcaOptimizer / SdcaOptimizerV2): for each
loss, the closed-form or Newton-solved dual coordinate step, the primal and dual losses
recorded in the example state, the primal derivative and the smoothness constant that
adaptive sampling uses, and the label convention. All arithmetic is in double, as TF's.

The step follows the CoCoA+ form: `norm` is the example's squared norm divided by l2 and
`parts` the number of loss partitions, so the quadratic term is parts * norm * weight.
"""
import math
import sys

from trainflow._src.framework import errors

_DBL_MAX = sys.float_info.max
_NEWTON_STEPS = 10


def _binary_label(label):
    if label == 0.0:
        return -1.0
    if label == 1.0:
        return 1.0
    raise errors.InvalidArgumentError(
        None, None, "Only labels of 0.0 or 1.0 are supported right now. "
        f"Found example with label: {label:g}")


class LogisticLoss:
    """log(1 + exp(-y wx)), labels 0/1 (as -1/+1); dual step by Newton's method on
    x = atanh(2 y alpha - 1)."""
    smoothness = 4.0
    convert_label = staticmethod(_binary_label)

    @staticmethod
    def updated_dual(parts, label, weight, dual, wx, norm):
        x = 0.0
        c = parts * norm * weight
        for _ in range(_NEWTON_STEPS):
            t = math.tanh(x)
            num = -2 * label * x - wx - c * (0.5 * (1 + t) / label - dual)
            den = -2 * label - c * (1 - t * t) * 0.5 / label
            x -= num / den
        return 0.5 * (1 + math.tanh(x)) / label

    @staticmethod
    def dual_loss(dual, label, weight):
        ay = dual * label
        log_ay = math.log(ay) if ay > 0 else 0.0
        rest = 1 - ay
        log_rest = math.log(rest) if rest > 0 else 0.0
        return (ay * log_ay + rest * log_rest) * weight

    @staticmethod
    def primal_loss(wx, label, weight):
        ywx = label * wx
        if ywx > 0:
            return math.log1p(math.exp(-ywx)) * weight
        return (math.log1p(math.exp(ywx)) - ywx) * weight

    @staticmethod
    def derivative(wx, label, weight):
        if label * wx > 0:
            e = math.exp(-label * wx)
            inv = e / (1 + e)
        else:
            inv = 1 / (1 + math.exp(label * wx))
        return -inv * label * weight


class SquaredLoss:
    """(wx - y)^2 / 2 for regression; closed-form dual step."""
    smoothness = 1.0

    @staticmethod
    def convert_label(label):
        return label

    @staticmethod
    def updated_dual(parts, label, weight, dual, wx, norm):
        return dual + (label - dual - wx) / (1 + parts * norm * weight)

    @staticmethod
    def dual_loss(dual, label, weight):
        return dual * (0.5 * dual - label) * weight

    @staticmethod
    def primal_loss(wx, label, weight):
        err = wx - label
        return err * err * weight * 0.5

    @staticmethod
    def derivative(wx, label, weight):
        return (wx - label) * weight


def _clip_dual(candidate, label):
    # The dual of a hinge loss lives in y * alpha in [0, 1].
    if label * candidate < 0:
        return 0.0
    if label * candidate > 1.0:
        return label
    return candidate


class HingeLoss:
    """max(0, 1 - y wx), labels 0/1 (as -1/+1); dual clipped to y alpha in [0, 1]."""
    smoothness = 0.0
    convert_label = staticmethod(_binary_label)

    @staticmethod
    def updated_dual(parts, label, weight, dual, wx, norm):
        return _clip_dual(dual + (label - wx) / (parts * weight * norm), label)

    @staticmethod
    def dual_loss(dual, label, weight):
        ya = dual * label
        if ya < 0 or ya > 1.0:
            return _DBL_MAX
        return -ya * weight

    @staticmethod
    def primal_loss(wx, label, weight):
        return max(0.0, 1 - label * wx) * weight

    @staticmethod
    def derivative(wx, label, weight):
        return -label * weight if label * wx < 1 else 0.0


class SmoothHingeLoss:
    """The hinge loss smoothed quadratically over a margin of gamma = 1."""
    gamma = 1.0
    smoothness = gamma
    convert_label = staticmethod(_binary_label)

    @classmethod
    def updated_dual(cls, parts, label, weight, dual, wx, norm):
        g = cls.gamma
        return _clip_dual(dual + (label - wx - g * dual) / (parts * weight * norm + g), label)

    @classmethod
    def dual_loss(cls, dual, label, weight):
        ya = dual * label
        if ya < 0 or ya > 1.0:
            return _DBL_MAX
        return (-ya + 0.5 * cls.gamma * dual * dual) * weight

    @classmethod
    def primal_loss(cls, wx, label, weight):
        ywx = label * wx
        if ywx >= 1:
            return 0.0
        if ywx <= 1 - cls.gamma:
            return (1 - ywx - cls.gamma / 2) * weight
        return (1 - ywx) * (1 - ywx) * weight * 0.5 / cls.gamma

    @classmethod
    def derivative(cls, wx, label, weight):
        # TF leaves the example weight out of this derivative (adaptive sampling only).
        if label * wx >= 1:
            return 0.0
        if label * wx <= 1 - cls.gamma:
            return -label
        return (wx - label) / cls.gamma


class PoissonLoss:
    """exp(wx) - y wx for counts y >= 0; dual step by Newton's method on
    x = log(y - alpha)."""
    smoothness = 1.0

    @staticmethod
    def convert_label(label):
        if label < 0.0:
            raise errors.InvalidArgumentError(
                None, None, "Only non-negative labels can be used with the Poisson log "
                f"loss. Found example with label: {label:g}")
        return label

    @staticmethod
    def updated_dual(parts, label, weight, dual, wx, norm):
        rest = label - dual
        x = math.log(rest) if rest > 0 else 0.0
        c = parts * norm * weight
        for _ in range(_NEWTON_STEPS):
            ex = math.exp(x)
            x -= (x - wx - c * (label - dual - ex)) / (1 + c * ex)
        return label - math.exp(x)

    @staticmethod
    def dual_loss(dual, label, weight):
        rest = label - dual
        if rest == 0.0:
            return 0.0
        if rest < 0.0:
            return _DBL_MAX
        return rest * (math.log(rest) - 1) * weight

    @staticmethod
    def primal_loss(wx, label, weight):
        return (math.exp(wx) - wx * label) * weight

    @staticmethod
    def derivative(wx, label, weight):
        return (math.exp(wx) - label) * weight


LOSSES = {"logistic_loss": LogisticLoss, "squared_loss": SquaredLoss,
          "hinge_loss": HingeLoss, "smooth_hinge_loss": SmoothHingeLoss,
          "poisson_loss": PoissonLoss}
