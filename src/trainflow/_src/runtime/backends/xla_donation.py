"""Variables inside traced XLA steps (`Ref`), the donation of their buffers, and what
keeps a failed step's variables as they were.

A step donates the old device buffers of the variables it writes: XLA writes their new
values into them. A run-time check that fails (a label out of range, a failed Assert)
must still leave every variable as it was, since the NumPy path then runs the step again
for its error. The checks come in two kinds:

- a check that depends on no variable (on fed labels or indices, say): a small compiled
  function computes these flags from the step's inputs before the step runs (XLA drops
  the rest of the step from it), so a failing one stops the step before anything is
  donated;
- any other check ("late"): a variable value set after it is selected back to the old
  one when it failed, where the value is made (`guard`), so the failed step hands back
  the old values in the donated buffers. Selecting at the source keeps XLA's in-place
  updates free of copies (a select on the step's outputs made it copy every slot).
"""
import math

import jax
import jax.numpy as jnp


class Ref:
    """A variable inside a traced segment: its current value, and whether it was set.

    With `checks` (the step's StepChecks, when its old buffer may be donated), a value
    set after a late check that failed is the old one; `guarded` is (the value set, the
    number of late checks it covers).
    """

    __slots__ = ("value", "dtype", "written", "old", "checks", "guarded")

    def __init__(self, value, dtype, checks=None):
        self.value = self.old = value
        self.dtype = dtype
        self.written = False
        self.checks = checks
        self.guarded = None

    def get(self):
        return self.value

    def set(self, value):
        """Replaces the variable's value (cast to its dtype)."""
        value = jnp.asarray(value, dtype=self.dtype)
        if self.checks is not None and same_aval(value, self.old):
            value, covered = guard(value, self.old, self.checks)
            self.guarded = (value, covered)
        self.value = value
        self.written = True


class StepChecks(list):
    """The run-time checks (op, failed, message, class) of one traced step, in order.

    `late` holds the positions of the checks that depend on a variable's value: those
    in `known_late` (learnt from an earlier trace of the same step, `split_checks`),
    or all when it is None. They are read back through the list, so a check re-gated
    in place stays current.
    """

    def __init__(self, known_late=None):
        super().__init__()
        self.known_late = known_late
        self.late = []

    def append(self, check):
        if self.known_late is None or len(self) in self.known_late:
            self.late.append(len(self))
        super().append(check)

    def late_checks(self):
        """The late checks as they stand now."""
        return [self[i] for i in self.late]


def split_checks(closed, n_refs, aliases):
    """Which checks depend on a variable, and a compiled function of the others.

    Args:
      closed: the jaxpr of the step giving the tuple of its check flags, from its
        arguments: the n_refs variable values, then the other values.
      aliases: per other value, the variable whose buffer it is, or -1.

    Returns:
      (late, pre, pre_fn, pre_args): the positions of the checks whose flag depends on
      a variable; the positions of the others; a jitted function of the arguments at
      positions pre_args giving the others' stacked flags, in order (None when there
      are none). Both come
      from jax's own dead-code pass over the jaxpr: pre_fn takes only what its checks
      read, so it is quick to call.
    """
    from jax._src import core  # noqa: PLC0415 - jax's jaxpr types
    from jax._src.interpreters import partial_eval  # noqa: PLC0415 - jax's DCE pass
    n_out = len(closed.jaxpr.outvars)
    n_args = n_refs + len(aliases)
    if len(closed.jaxpr.invars) != n_args:  # an uninitialized variable: no input
        return frozenset(range(n_out)), (), None, ()
    tainted = [k < n_refs or aliases[k - n_refs] >= 0 for k in range(n_args)]
    late = set()
    for i in range(n_out):
        _, used = partial_eval.dce_jaxpr(closed.jaxpr, [j == i for j in range(n_out)])
        if any(u and t for u, t in zip(used, tainted)):
            late.add(i)
    pre = tuple(i for i in range(n_out) if i not in late)
    if not pre:
        return frozenset(late), (), None, ()
    jaxpr, used = partial_eval.dce_jaxpr(closed.jaxpr, [i not in late for i in range(n_out)])
    flags = core.jaxpr_as_fun(core.ClosedJaxpr(jaxpr, closed.consts))
    pre_fn = jax.jit(lambda *args: jnp.stack([jnp.asarray(f, bool) for f in flags(*args)]))
    return frozenset(late), pre, pre_fn, tuple(k for k, u in enumerate(used) if u)


def any_failed(checks):
    """Traced: whether any of `checks` ((op, failed, message, class)) failed."""
    return jnp.any(jnp.stack([jnp.asarray(failed, bool).reshape(())
                              for _, failed, _, _ in checks]))


def same_aval(new, old):
    """Whether a variable's new traced value fits its old buffer (shape and dtype)."""
    return old is not None and jnp.shape(new) == jnp.shape(old) and \
        jnp.result_type(new) == jnp.result_type(old)


def donatable(written, new, old, min_bytes):
    """The positions in `written` whose old buffer (`old`) fits the new value (`new`),
    when together they hold at least `min_bytes`; else ()."""
    fits = tuple(k for k in written if same_aval(new[k], old[k]))
    size = sum(math.prod(jnp.shape(old[k])) * jnp.result_type(old[k]).itemsize for k in fits)
    return fits if fits and size >= min_bytes else ()


def guard(value, old, checks):
    """(value to set, the number of late checks it covers): `value`, or `old` where a
    late check of `checks` (a StepChecks) so far failed."""
    late = checks.late_checks()
    if late:
        value = jnp.where(any_failed(late), old, value)
    return value, len(late)
