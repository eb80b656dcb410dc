"""The op registry: one entry per op type with its signature, shape function,
kernel, gradient and flags (contract 1 of docs/architecture.md).

Kernels are plain functions ``kernel(*inputs, **attrs) -> array | tuple``. The
attrs a kernel wants are its keyword-only parameters; a keyword-only ``ctx``
parameter receives the op's `KernelContext` (session resources, the op itself).
List inputs (``N * T``) arrive as one Python list.

Kernels are kept per backend. The NumPy kernel (backend "numpy") is `OpInfo.kernel`,
set by `register_op(kernel=...)`; another backend (an XLA lowering) registers its
own with `register_kernel(op_type, fn, backend=...)`, beside or away from the op's
family module, and the runtime's planner asks `kernel(op_type, backend)`.
"""
import importlib
import inspect

from trainflow._src.framework import op_index
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


def _import_module_of(op_type, index):
    """Imports the module that `index` (an op_index table) names for `op_type`; returns
    whether there was one. How an op type that `import trainflow` leaves out (kept off
    the fast import path) is found, e.g. by import_graph_def."""
    module = index.get(op_type)
    if module is None:
        return False
    importlib.import_module(module)
    return True


def load_all_op_modules():
    """Imports every module that registers an op type or a gradient (op_index)."""
    for module in sorted(set(op_index.OP_MODULES.values()) |
                         set(op_index.GRADIENT_MODULES.values())):
        importlib.import_module(module)


NUMPY = "numpy"
# backend name -> {op type: kernel}, for backends other than NumPy (whose kernels live
# on the OpInfos).
_BACKEND_KERNELS = {}
# backend name -> fn(op type) importing the module of its kernel there (set by the
# backend when it is first used); returns whether there was one.
_KERNEL_LOADERS = {}


def set_kernel_loader(backend, loader):
    """Has `kernel(op_type, backend)` call `loader(op_type)` when it finds no kernel, so
    that a backend's kernel modules are imported for the op types it meets."""
    _KERNEL_LOADERS[backend] = loader


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
    fn = _BACKEND_KERNELS.get(backend, {}).get(op_type)
    if fn is None:
        loader = _KERNEL_LOADERS.get(backend)
        if loader is not None and loader(op_type):
            fn = _BACKEND_KERNELS.get(backend, {}).get(op_type)
    return fn


def kernel_backends(op_type):
    """The backends that have a kernel for `op_type`, NumPy first."""
    out = [NUMPY] if kernel(op_type) is not None else []
    backends = list(_BACKEND_KERNELS) + [b for b in _KERNEL_LOADERS if b not in _BACKEND_KERNELS]
    out.extend(b for b in backends if kernel(op_type, b) is not None)
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
    if info is None and _import_module_of(name, op_index.OP_MODULES):
        info = _REGISTRY.get(name)
    if info is None:
        raise KeyError(f"Op type not registered '{name}' in trainflow")
    return info


def is_registered(name):
    """True if op type `name` is registered."""
    if name not in _REGISTRY:
        _import_module_of(name, op_index.OP_MODULES)
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
    whose gradient `import trainflow` leaves out (Qr's in ops/linalg) imports its module."""
    if op_type not in _GRADIENTS:
        _import_module_of(op_type, op_index.GRADIENT_MODULES)
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
