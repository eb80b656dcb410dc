"""`tf.linalg.LinearOperatorCirculant`, `...Circulant2D` and `...Circulant3D`: circulant
(block circulant, for 2D and 3D) operators given by their spectrum, A = F^{-1} diag(s) F
with F the 1-, 2- or 3-D discrete Fourier transform: products and solves run through
the FFT."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.signal import fft_ops

_FFT = {1: (fft_ops.fft, fft_ops.ifft), 2: (fft_ops.fft2d, fft_ops.ifft2d),
        3: (fft_ops.fft3d, fft_ops.ifft3d)}


def _to_complex(x):
    if x.dtype.is_complex:
        return x
    dtype = dtypes.complex128 if x.dtype == dtypes.float64 else dtypes.complex64
    return math_ops.cast(x, dtype)


class BaseLinearOperatorCirculant(LinearOperator):
    """The circulant operators of block depth 1, 2 and 3 (not a TF name)."""

    def __init__(self, spectrum, block_depth, input_output_dtype=dtypes.complex64,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, parameters=None, name="LinearOperatorCirculant"):
        allowed = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
                   dtypes.complex128)
        with name_scope(name, values=[spectrum]):
            self._spectrum = util.convert_nonref(spectrum, name="spectrum")
            if self._spectrum.dtype.base_dtype not in allowed:
                raise TypeError("Argument spectrum must have dtype in %s.  Found: %s"
                                % ([d.name for d in allowed], self._spectrum.dtype))
            rank = self._spectrum.shape.ndims
            if rank is not None and rank < block_depth:
                raise ValueError("Argument spectrum must have at least %d dimensions.  "
                                 "Found: %s" % (block_depth, self._spectrum))
            if not is_square:
                raise ValueError("A circulant operator is always square.")
            self._block_depth = block_depth
            super().__init__(dtype=dtypes.as_dtype(input_output_dtype),
                             is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def spectrum(self):
        """The eigenvalues, shape batch + block_shape."""
        return self._spectrum

    @property
    def block_depth(self):
        """1, 2 or 3: how many trailing axes of the spectrum make one block."""
        return self._block_depth

    def _axes(self):
        return [-(i + 1) for i in range(self._block_depth)]

    def block_shape_tensor(self):
        """The block shape [N0, ..., ] as a Tensor."""
        return array_ops.shape(self._spectrum)[-self._block_depth:]

    @property
    def block_shape(self):
        """The static block shape."""
        return util.static_shape(self._spectrum)[-self._block_depth:]

    def _shape(self):
        s = util.static_shape(self._spectrum)
        n = s[-self._block_depth:].num_elements()
        return s[:-self._block_depth].concatenate(TensorShape([n, n]))

    def _shape_tensor(self):
        s = array_ops.shape(self._spectrum)
        n = math_ops.reduce_prod(s[-self._block_depth:])
        return array_ops.concat([s[:-self._block_depth], array_ops.stack([n, n])], 0)

    def _out(self, y):
        return math_ops.real(y) if not self.dtype.is_complex else math_ops.cast(y, self.dtype)

    def _apply_spectrum(self, x, spectrum):
        """F^{-1} diag(spectrum) F applied to the columns of x [..., N, R]."""
        fft, ifft = _FFT[self._block_depth]
        x = math_ops.cast(x, spectrum.dtype)
        xt = linalg_api.matrix_transpose(x)
        blocked = array_ops.reshape(xt, array_ops.concat(
            [array_ops.shape(xt)[:-1], self.block_shape_tensor()], 0))
        expanded = array_ops.expand_dims(spectrum, -(self._block_depth + 1))
        y = ifft(expanded * fft(blocked))
        y_shape = array_ops.shape(y)
        flat = array_ops.reshape(y, array_ops.concat(
            [y_shape[:-self._block_depth], [-1]], 0))
        return linalg_api.matrix_transpose(flat)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_api.adjoint(x) if adjoint_arg else x
        spectrum = _to_complex(self._spectrum)
        if adjoint:
            spectrum = math_ops.conj(spectrum)
        return self._out(self._apply_spectrum(x, spectrum))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_api.adjoint(rhs) if adjoint_arg else rhs
        spectrum = _to_complex(self._spectrum)
        if adjoint:
            spectrum = math_ops.conj(spectrum)
        return self._out(self._apply_spectrum(rhs, 1.0 / spectrum))

    def convolution_kernel(self, name="convolution_kernel"):
        """The first column of the operator: the inverse FFT of the spectrum."""
        with self._name_scope(name):
            h = _FFT[self._block_depth][1](_to_complex(self._spectrum))
            return self._out(h)

    def assert_hermitian_spectrum(self, name="assert_hermitian_spectrum"):
        """An op failing when the spectrum is not Hermitian (a real operator needs one)."""
        with self._name_scope(name):
            # Hermitian spectrum <=> real convolution kernel.
            kernel = _FFT[self._block_depth][1](_to_complex(self._spectrum))
            imag = math_ops.imag(kernel)
            return check_ops.assert_near(imag, array_ops.zeros_like(imag),
                                         message="Spectrum was not Hermitian")

    def _determinant(self):
        det = math_ops.reduce_prod(_to_complex(self._spectrum), axis=self._axes())
        return self._out(det)

    def _log_abs_determinant(self):
        log_abs = math_ops.reduce_sum(math_ops.log(math_ops.abs(self._spectrum)),
                                      axis=self._axes())
        return math_ops.cast(log_abs, self.dtype)

    def _trace(self):
        return self._out(math_ops.reduce_sum(_to_complex(self._spectrum), axis=self._axes()))

    def _diag_part(self):
        spectrum = _to_complex(self._spectrum)
        mean = math_ops.reduce_mean(spectrum, axis=self._axes())
        n = math_ops.reduce_prod(self.block_shape_tensor())
        ones = array_ops.ones(array_ops.reshape(n, [1]), dtype=spectrum.dtype)
        return self._out(array_ops.expand_dims(mean, -1) * ones)

    def _eigvals(self):
        return self._out(array_ops.reshape(_to_complex(self._spectrum), array_ops.concat(
            [array_ops.shape(self._spectrum)[:-self._block_depth], [-1]], 0)))

    def _assert_non_singular(self):
        return check_ops.assert_none_equal(
            math_ops.abs(self._spectrum), array_ops.zeros([], self._spectrum.dtype.real_dtype),
            message="Singular operator: Spectrum contained zero values.")


    def _derived(self, spectrum, **kwargs):
        return type(self)(spectrum, **kwargs)

    def _linop_adjoint(self):
        spectrum = self._spectrum
        if spectrum.dtype.is_complex:
            spectrum = math_ops.conj(spectrum)
        # As TensorFlow, the adjoint takes the default input_output_dtype.
        return self._derived(spectrum, is_non_singular=self.is_non_singular,
                             is_self_adjoint=self.is_self_adjoint,
                             is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_inverse(self):
        return self._derived(1.0 / self._spectrum, input_output_dtype=self.dtype,
                             is_non_singular=self.is_non_singular,
                             is_self_adjoint=self.is_self_adjoint,
                             is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_matmul(self, left, right):
        if not isinstance(right, type(left)) or not isinstance(left, type(right)):
            return super()._linop_matmul(left, right)
        # As TensorFlow, the product takes the default input_output_dtype.
        return self._derived(left.spectrum * right.spectrum, is_square=True,
                             **util.commuting_hints(left, right))

    def _linop_solve(self, left, right):
        if not isinstance(right, type(left)) or not isinstance(left, type(right)):
            return super()._linop_solve(left, right)
        return self._derived(right.spectrum / left.spectrum, is_square=True,
                             **util.commuting_hints(left, right))


class LinearOperatorCirculant(BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a circulant matrix of size N with eigenvalues
    `spectrum` ([..., N])."""

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant"):
        parameters = dict(spectrum=spectrum, input_output_dtype=input_output_dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        super().__init__(spectrum, 1, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, parameters, name)


class LinearOperatorCirculant2D(BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a block circulant matrix with circulant blocks, of
    size N0 * N1, with eigenvalues `spectrum` ([..., N0, N1])."""

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant2D"):
        parameters = dict(spectrum=spectrum, input_output_dtype=input_output_dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        super().__init__(spectrum, 2, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, parameters, name)


class LinearOperatorCirculant3D(BaseLinearOperatorCirculant):
    """`LinearOperator` acting like a doubly nested block circulant matrix of size
    N0 * N1 * N2, with eigenvalues `spectrum` ([..., N0, N1, N2])."""

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant3D"):
        parameters = dict(spectrum=spectrum, input_output_dtype=input_output_dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        super().__init__(spectrum, 3, input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, parameters, name)
