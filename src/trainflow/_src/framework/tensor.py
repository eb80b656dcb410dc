"""`Tensor`: a symbolic handle to one output of an Operation."""
from trainflow._src.framework import dtypes, session_stack
from trainflow._src.framework.tensor_shape import as_shape


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation that needs a concrete value (bool(), iteration) was applied to a
    symbolic Tensor. A TypeError, as in TensorFlow."""


class Tensor:
    """One output of an `Operation`, computed when a Session runs it.

    Tensors hash by identity (TF1 semantics); `==` is identity too. Arithmetic,
    comparison, logical and indexing operators build ops in the tensor's graph.
    """

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "__weakref__")

    # Lets NumPy defer to our reflected operators (np.float32(2) * t -> t.__rmul__).
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape
        self._consumers = []

    @property
    def op(self):
        """The Operation that produces this tensor."""
        return self._op

    @property
    def value_index(self):
        """The index of this tensor among its op's outputs."""
        return self._value_index

    @property
    def dtype(self):
        """The DType of the elements."""
        return self._dtype

    @property
    def graph(self):
        """The Graph that holds this tensor."""
        return self._op._graph

    @property
    def name(self):
        """``"<op name>:<output index>"``."""
        return f"{self._op._name}:{self._value_index}"

    @property
    def device(self):
        """The device of the producing op."""
        return self._op.device

    @property
    def shape(self):
        """The statically known TensorShape."""
        return self._shape

    def get_shape(self):
        """Alias of `shape`."""
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape with `shape` (merging known dimensions).

        Raises:
          ValueError: if `shape` is not compatible with the current shape (TF's wording:
            "Shapes must be equal rank, ..." / "Dimension 1 in both shapes must be
            equal, ...").
        """
        new = as_shape(shape)
        old = self._shape
        if old._dims is not None and new._dims is not None:
            if len(old._dims) != len(new._dims):
                raise ValueError(f"Shapes must be equal rank, but are {len(old._dims)} and "
                                 f"{len(new._dims)}")
            for i, (a, b) in enumerate(zip(old._dims, new._dims)):
                if a is not None and b is not None and a != b:
                    raise ValueError(f"Dimension {i} in both shapes must be equal, but are "
                                     f"{a} and {b}. Shapes are {_dims_str(old)} and "
                                     f"{_dims_str(new)}.")
        self._shape = old.merge_with(new)

    def consumers(self):
        """The Operations that take this tensor as an input."""
        return list(self._consumers)

    def eval(self, feed_dict=None, session=None):
        """Computes this tensor in `session` (default: the default session)."""
        return session_stack.run_using_default_session(self, feed_dict, self.graph, session,
                                                       is_tensor=True)

    def _as_node_def_input(self):
        if self._value_index == 0:
            return self._op._name
        return f"{self._op._name}:{self._value_index}"

    def __repr__(self):
        return (f"<tf.Tensor '{self.name}' shape={self._shape} "
                f"dtype={self._dtype.name}>")

    def __str__(self):
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    # Identity semantics, at C speed (tensors are dict keys on the Session.run path).
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. Its value is "
            "only known when a Session runs it: use `if t is not None:` to test whether a "
            "tensor exists, and tf.cond to branch on its value.")

    def __iter__(self):
        raise OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `tf.Tensor` is not allowed. Its elements are only "
            "known when a Session runs it: use tf.unstack or tf.map_fn.")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). "
                        "Please call `x.shape` rather than `len(x)` for shape information.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. Run it in "
            "a Session to get its value.")

    @classmethod
    def _override_operator(cls, operator, func):
        """Installs `func` as `operator` (e.g. "__add__"); used by the math/array ops."""
        setattr(cls, operator, func)


def _dims_str(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape._dims) + "]"


def is_ref_tensor(t):
    """True if `t` is a reference-typed tensor (a variable's ref output)."""
    return isinstance(t, Tensor) and t._dtype._is_ref_dtype


def base_dtype_of(t):
    return t._dtype.base_dtype if isinstance(t._dtype, dtypes.DType) else t._dtype
