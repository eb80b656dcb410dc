"""`tf.case`: a chain of conds, one per predicate, tested in order."""
import collections
import functools

from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.array import join
from trainflow._src.ops.array import cast
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.framework.constant_op import constant
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src import tf_logging


def _assert_at_most_n_true(predicates, n, msg):
    """An Assert op failing when more than `n` of the bool scalars `predicates` hold."""
    preds_c = join.stack(predicates, name="preds_c")
    num_true = reductions.reduce_sum(cast.cast(preds_c, dtypes.int32), name="num_true_conds")
    condition = arith.less_equal(num_true, constant(n, name="n_true_conds"))
    preds_names = ", ".join(getattr(p, "name", "?") for p in predicates)
    error_msg = [f"{msg}: more than {n} conditions ({preds_names}) evaluated as True:",
                 preds_c]
    return Assert(condition, data=error_msg, summarize=len(predicates))


def _default_action(predicates, actions):
    """With no default given, the last action becomes the default, guarded by
    asserts that its predicate holds and no other does."""
    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    other_predicates, other_actions = predicates[:k], actions[:k]

    def default_action():
        others_msg = ("Implementation error: selected default action #%d was called, but "
                      "some of other predicates are True: " % k)
        default_msg = ("Input error: None of conditions evaluated as True:",
                       join.stack(predicates, name="preds_c"))
        with control_dependencies([_assert_at_most_n_true(other_predicates, 0, others_msg),
                                   Assert(predicate, data=default_msg)]):
            return action()

    return default_action, other_predicates, other_actions


def _canonicalize(pred_fn_pairs, exclusive, name):
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError("'pred_fn_pairs' must be a list, tuple, or dict. "
                        f"Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
        if not exclusive:
            tf_logging.warn("%s: An unordered dictionary of predicate/fn pairs was provided, "
                            "but exclusive=False. The order of conditional tests is "
                            "deterministic but not guaranteed.", name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Tensor):
            if pred.dtype.base_dtype != dtypes.bool:
                raise TypeError("pred must be Tensor of type bool: %s" % pred.name)
        else:
            raise TypeError("pred must be a Tensor, got: %s" % (pred,))
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % pred.name)
    if not pred_fn_pairs:
        return (), ()
    predicates, actions = zip(*pred_fn_pairs)
    return predicates, actions


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """Runs the fn of the first predicate that holds, else `default` (TF1 `tf.case`).

    Args:
      pred_fn_pairs: list of (bool scalar Tensor, callable) pairs, or a dict of them
        (sorted by predicate name).
      default: callable used when no predicate holds; without it the last pair
        is the fallback and an assertion checks that some predicate holds.
      exclusive: also assert (at run time) that at most one predicate holds.
      strict: passed to cond (keep singleton lists/tuples).
      name: name scope.

    Returns:
      the chosen callable's tensors.

    Raises:
      TypeError: for malformed pairs, non-bool predicates or non-callables.
    """
    predicates, actions = _canonicalize(pred_fn_pairs, exclusive, name)
    if default is not None and not callable(default):
        raise TypeError("'default' must be callable.")
    with name_scope(name, "case", list(predicates)):
        if default is None:
            default, predicates, actions = _default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, true_fn=action, false_fn=fn, strict=strict)
        if exclusive:
            with control_dependencies([_assert_at_most_n_true(
                    predicates, 1, "Input error: exclusive=True")]):
                return fn()
        return fn()
