"""XLA lowerings of the FFT ops (jax.numpy.fft) and the Bessel ops I0, I1, I0e, I1e
(tf.math's, which kaiser_window uses), registered
with the registry's "xla" backend; imported only when XLA is on.

An RFFT's or IRFFT's fft_length must be known while tracing (a constant, as
`tf.signal.rfft` makes it from static shapes); otherwise the lowering raises and the
segment runs on NumPy.
"""
import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework.registry import register_kernel

XLA = "xla"
_SUFFIX = {1: "", 2: "2D", 3: "3D"}


def _lengths(fft_length):
    if isinstance(fft_length, jax.core.Tracer):
        raise TypeError("fft_length is computed in the step, not known at trace time")
    return [int(n) for n in np.asarray(fft_length).reshape(-1)]


def _fitted(x, shape):
    rank = len(shape)
    crop = tuple(slice(0, min(d, n)) for d, n in zip(x.shape[-rank:], shape))
    x = x[(Ellipsis,) + crop]
    pads = [(0, 0)] * (x.ndim - rank) + [(0, n - d) for d, n in zip(x.shape[-rank:], shape)]
    return jnp.pad(x, pads)


def _complex(rank, inverse):
    fn = jnp.fft.ifftn if inverse else jnp.fft.fftn

    def lowering(input):  # noqa: A002 - TF's name
        return fn(input, axes=tuple(range(-rank, 0))).astype(input.dtype)
    return lowering


def _rfft(rank):
    def lowering(input, fft_length, *, Treal, Tcomplex):  # noqa: A002,N803 - TF's names
        lengths = _lengths(fft_length)
        out = jnp.fft.rfftn(_fitted(input, lengths), axes=tuple(range(-rank, 0)))
        return out.astype(Tcomplex.as_numpy_dtype)
    return lowering


def _irfft(rank):
    def lowering(input, fft_length, *, Treal, Tcomplex):  # noqa: A002,N803 - TF's names
        lengths = _lengths(fft_length)
        inner = lengths[:-1] + [lengths[-1] // 2 + 1]
        out = jnp.fft.irfftn(_fitted(input, inner), s=lengths, axes=tuple(range(-rank, 0)))
        return out.astype(Treal.as_numpy_dtype)
    return lowering


def _nd(fn):
    def lowering(input, fft_length, axes, **attrs):  # noqa: A002 - TF's name
        out = fn(input, s=_lengths(fft_length), axes=_lengths(axes))
        if "Treal" in attrs and fn is jnp.fft.irfftn:
            return out.astype(attrs["Treal"].as_numpy_dtype)
        if "Tcomplex" in attrs and fn is jnp.fft.rfftn:
            return out.astype(attrs["Tcomplex"].as_numpy_dtype)
        return out.astype(input.dtype)
    return lowering


def _i1e(x):
    return jax.scipy.special.i1e(x)


def register():
    for rank, suffix in _SUFFIX.items():
        register_kernel("FFT" + suffix, _complex(rank, False), backend=XLA)
        register_kernel("IFFT" + suffix, _complex(rank, True), backend=XLA)
        register_kernel("RFFT" + suffix, _rfft(rank), backend=XLA)
        register_kernel("IRFFT" + suffix, _irfft(rank), backend=XLA)
    register_kernel("FFTND", _nd(jnp.fft.fftn), backend=XLA)
    register_kernel("IFFTND", _nd(jnp.fft.ifftn), backend=XLA)
    register_kernel("RFFTND", _nd(jnp.fft.rfftn), backend=XLA)
    register_kernel("IRFFTND", _nd(jnp.fft.irfftn), backend=XLA)
    register_kernel("BesselI0e", jax.scipy.special.i0e, backend=XLA)
    register_kernel("BesselI1e", _i1e, backend=XLA)
    register_kernel("BesselI0", jax.scipy.special.i0, backend=XLA)
    register_kernel("BesselI1", jax.scipy.special.i1, backend=XLA)


register()
