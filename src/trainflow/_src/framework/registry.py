"""The op registry: one entry per op type with its signature, shape function,
kernel, gradient and flags (DESIGN contract 1).

Kernels are plain functions ``kernel(*inputs, **attrs) -> array | tuple``. The
attrs a kernel wants are its keyword-only parameters; a keyword-only ``ctx``
parameter receives the op's `KernelContext` (session resources, the op itself).
List inputs (``N * T``) arrive as one Python list.

Kernels are kept per backend. The NumPy kernel (backend "numpy") is `OpInfo.kernel`,
set by `register_op(kernel=...)`; another backend (an XLA lowering) registers its
own with `register_kernel(op_type, fn, backend=...)`, beside or away from the op's
family module, and the runtime's planner asks `kernel(op_type, backend)`.
"""
import inspect

from trainflow._src.framework.op_def import OpDef


class OpInfo:
    """Everything known about one op type."""

    __slots__ = ("op_def", "shape_fn", "kernel", "kernel_attrs", "kernel_wants_ctx",
                 "stateful", "blocking", "host_only", "gradient", "has_gradient",
                 "is_ref_op", "output_aliases_input")

    def __init__(self, op_def, shape_fn, kernel, stateful, blocking, host_only,
                 output_aliases_input):
        self.op_def = op_def
        self.shape_fn = shape_fn
        self.stateful = stateful
        self.blocking = blocking
        self.host_only = host_only
        self.output_aliases_input = output_aliases_input
        self.gradient = None
        self.has_gradient = False
        self.set_kernel(kernel)

    @property
    def name(self):
        return self.op_def.name

    def set_kernel(self, kernel):
        """Installs `kernel` and records which attrs it takes."""
        self.kernel = kernel
        self.kernel_attrs = ()
        self.kernel_wants_ctx = False
        if kernel is None:
            return
        params = inspect.signature(kernel).parameters.values()
        kw = [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
        self.kernel_wants_ctx = "ctx" in kw
        self.kernel_attrs = tuple(k for k in kw if k != "ctx")


_REGISTRY = {}
_GRADIENTS = {}
# Op modules not imported by `import trainflow` (kept out of the fast import path); they
# are loaded the first time an unknown op type is looked up (e.g. by import_graph_def).
_LAZY_OP_MODULES = ["trainflow._src.ops.state.training_ops", "trainflow._src.ops.nn.nn_ops",
                     "trainflow._src.ops.nn.conv", "trainflow._src.ops.nn.pool",
                     "trainflow._src.ops.image.resize", "trainflow._src.ops.image.color",
                     "trainflow._src.ops.image.codec", "trainflow._src.ops.math.clip_ops",
                     "trainflow._src.ops.state.sdca_ops",
                     "trainflow._src.ops.state.sdca_optimizer",
                     "trainflow._src.ops.array.quantize_dequantize",
                     "trainflow._src.ops.io.save_restore", "trainflow._src.ops.io.checkpoint_ops",
                     "trainflow._src.ops.string.regex_match", "trainflow._src.ops.data_flow.stack_ops",
                     "trainflow._src.ops.summary.summary_kernels",
                     "trainflow._src.ops.linalg.linalg_api", "trainflow._src.ops.math.einsum",
                     "trainflow._src.ops.math.bitwise", "trainflow._src.ops.math.sparse_segment",
                     "trainflow._src.ops.math.special_gamma", "trainflow._src.ops.math.cumulative_logsumexp",
                     "trainflow._src.ops.array.depth_space", "trainflow._src.ops.nn.conv3d",
                     "trainflow._src.ops.linalg.matrix_diag", "trainflow._src.ops.data_flow.tensor_array",
                     "trainflow._src.ops.linalg.eig", "trainflow._src.ops.linalg.least_squares"]



def register_lazy_op_module(module_name):
    """Names a module that registers ops but is not imported eagerly."""
    if module_name not in _LAZY_OP_MODULES:
        _LAZY_OP_MODULES.append(module_name)


def _load_lazy_modules():
    import importlib
    while _LAZY_OP_MODULES:
        importlib.import_module(_LAZY_OP_MODULES.pop(0))


NUMPY = "numpy"
# backend name -> {op type: kernel}, for backends other than NumPy (whose kernels live
# on the OpInfos).
_BACKEND_KERNELS = {}


def register_kernel(op_type, fn, backend=NUMPY):
    """Registers `fn` as the kernel of `op_type` on `backend`.

    For "numpy", `fn` is a NumPy kernel as described above and replaces
    `OpInfo.kernel`; other backends define what their kernels take.

    Raises:
      KeyError: if `op_type` is not registered.
    """
    info = get(op_type)
    if backend == NUMPY:
        info.set_kernel(fn)
    else:
        _BACKEND_KERNELS.setdefault(backend, {})[info.name] = fn


def kernel(op_type, backend=NUMPY):
    """The kernel of `op_type` on `backend`, or None if it has none there."""
    if backend == NUMPY:
        info = _REGISTRY.get(op_type)
        return None if info is None else info.kernel
    return _BACKEND_KERNELS.get(backend, {}).get(op_type)


def kernel_backends(op_type):
    """The backends that have a kernel for `op_type`, NumPy first."""
    out = [NUMPY] if kernel(op_type) is not None else []
    out.extend(b for b, table in _BACKEND_KERNELS.items() if op_type in table)
    return out


def register_op(name, inputs=(), outputs=(), attrs=(), shape_fn=None, kernel=None,
                stateful=False, blocking=False, host_only=False, output_aliases_input=False):
    """Registers op type `name`. Returns its OpInfo.

    Args:
      name: TensorFlow's op type name, e.g. "MatMul".
      inputs, outputs, attrs: TF-style signature strings (see op_def).
      shape_fn: ``fn(op) -> list of TensorShape`` (one per output), or None.
      kernel: the NumPy kernel, or None for ops the executor handles itself.
      stateful: the op has side effects or hidden state (never pruned/folded).
      blocking: the kernel may wait (queues); it must honour cancellation.
      host_only: the op cannot move to a compiled backend.
      output_aliases_input: the kernel may return (a view of) an input.

    Raises:
      KeyError: if `name` is already registered.
    """
    if name in _REGISTRY:
        raise KeyError(f"Op type {name!r} is already registered")
    info = OpInfo(OpDef(name, inputs, outputs, attrs), shape_fn, kernel, stateful, blocking,
                  host_only, output_aliases_input)
    _REGISTRY[name] = info
    if name in _GRADIENTS:
        info.gradient, info.has_gradient = _GRADIENTS[name], True
    return info


def get(name):
    """Returns the OpInfo of op type `name`.

    Raises:
      KeyError: naming the op type if it is unknown.
    """
    info = _REGISTRY.get(name)
    if info is None and _LAZY_OP_MODULES:
        _load_lazy_modules()
        info = _REGISTRY.get(name)
    if info is None:
        raise KeyError(f"Op type not registered '{name}' in trainflow")
    return info


def is_registered(name):
    """True if op type `name` is registered."""
    if name not in _REGISTRY and _LAZY_OP_MODULES:
        _load_lazy_modules()
    return name in _REGISTRY


def registered_names():
    """All registered op type names."""
    return sorted(_REGISTRY)


def set_gradient(op_type, fn):
    """Records the gradient function of `op_type` (None marks it not differentiable)."""
    _GRADIENTS[op_type] = fn
    info = _REGISTRY.get(op_type)
    if info is not None:
        info.gradient, info.has_gradient = fn, True


def get_gradient(op_type):
    """Returns (found, fn): fn is None for ops marked not differentiable. An op type
    whose gradient lives in a lazy module (Qr's in ops/linalg) loads those modules."""
    if op_type not in _GRADIENTS and _LAZY_OP_MODULES:
        _load_lazy_modules()
    if op_type in _GRADIENTS:
        return True, _GRADIENTS[op_type]
    return False, None


class RegisterGradient:
    """Decorator registering a gradient function for an op type (`tf.RegisterGradient`).

    Raises:
      KeyError: if `op_type` already has a gradient registered.
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in _GRADIENTS:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'! "
                           f"(Previous registration was in {_GRADIENTS[self._op_type]!r})")
        set_gradient(self._op_type, fn)
        return fn


def NotDifferentiable(op_type):  # noqa: N802 - TF's name
    """Marks `op_type` as having no gradient (its inputs get None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    set_gradient(op_type, None)


NoGradient = NotDifferentiable
