"""What the XLA lowerings of the variable ops share: the backend name, `NotLowerable`,
the resource-lowering mark and the occurrence count of sparse updates."""
import jax
import jax.numpy as jnp

XLA = "xla"


class NotLowerable(Exception):
    """Raised while tracing when an op's inputs do not suit its lowering; the segment
    then runs on NumPy, whose kernel raises TensorFlow's error for them."""


def resource_lowering(fn):
    """Marks `fn` as a lowering whose resource (handle) inputs arrive as Refs: ops of
    its types may take resource inputs inside a segment."""
    fn.takes_resources = True
    return fn


# Up to this many indices, occurrences are counted by comparing all pairs (quick to
# compile); beyond it, by a stable sort.
_PAIRWISE_MAX = 4096


def occurrences(indices):
    """Per position of `indices`, how many earlier positions hold the same index."""
    n = indices.shape[0]
    positions = jnp.arange(n)
    if n <= _PAIRWISE_MAX:
        earlier = (indices[:, None] == indices[None, :]) & \
            (positions[:, None] > positions[None, :])
        return jnp.sum(earlier, axis=1)
    order = jnp.argsort(indices, stable=True)
    ordered = indices[order]
    starts = jnp.concatenate([jnp.ones((1,), bool), ordered[1:] != ordered[:-1]])
    first = jax.lax.cummax(jnp.where(starts, positions, 0))
    return jnp.zeros(n, positions.dtype).at[order].set(positions - first)
