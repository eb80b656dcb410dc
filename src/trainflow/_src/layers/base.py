"""The `tf.layers.Layer` base class with TF1 variable-scope semantics.

A layer owns a variable scope, chosen on its first call: the scope named by `name`
(captured at construction), or a unique `default_name` scope from the snake-cased
class name ("dense", "dense_1", ...; unique per variable scope, name scopes don't
count). Its variables are `<scope>/<weight>` made with `tf.get_variable`, its ops live
in the name scope opened with that variable scope (`dense/MatMul`), later calls re-enter
it (`dense/MatMul_1`) and reuse the variables. Regularization losses (`<scope>/kernel/
Regularizer/...`, `<scope>/ActivityRegularizer/...`) go to REGULARIZATION_LOSSES and
update ops (batch-norm moving averages) to UPDATE_OPS.
"""
import weakref

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.layers.utils import to_snake_case
from trainflow._src.framework import nest
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import variable_scope as vs
from trainflow._src.ops.state import variable_helpers, variables

__all__ = ["InputSpec", "Layer"]

# graph -> {base layer name: count}, for unique default layer names ("dense_1").
_LAYER_NAME_UIDS = weakref.WeakKeyDictionary()


def _unique_layer_name(base_name):
    uids = _LAYER_NAME_UIDS.setdefault(get_default_graph(), {})
    count = uids.get(base_name, 0)
    uids[base_name] = count + 1
    return base_name if count == 0 else f"{base_name}_{count}"


class InputSpec:
    """Constraints a layer puts on its input: dtype, rank (ndim / min_ndim / max_ndim)
    and the sizes of some axes ({axis: size})."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None):
        self.dtype = None if dtype is None else dtypes.as_dtype(dtype).name
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})

    def __repr__(self):
        parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                         ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                         ("min_ndim", self.min_ndim),
                                         ("axes", self.axes or None)) if v]
        return "InputSpec(" + ", ".join(parts) + ")"


def _shape_tuple(shape):
    dims = shape.as_list()
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + \
        ("," if len(dims) == 1 else "") + ")"


def _check_input_spec(layer_name, spec, tensor, index=0):
    """Raises ValueError (Keras's wording) if `tensor` breaks `spec`."""
    if spec is None:
        return
    shape = tensor.shape
    where = f'Input {index} of layer "{layer_name}" is incompatible with the layer: '
    rank = shape.ndims
    if spec.ndim is not None and rank is not None and rank != spec.ndim:
        raise ValueError(where + f"expected ndim={spec.ndim}, found ndim={rank}. "
                         f"Full shape received: {_shape_tuple(shape)}")
    if spec.max_ndim is not None and rank is not None and rank > spec.max_ndim:
        raise ValueError(where + f"expected max_ndim={spec.max_ndim}, found ndim={rank}")
    if spec.min_ndim is not None and rank is not None and rank < spec.min_ndim:
        raise ValueError(where + f"expected min_ndim={spec.min_ndim}, found ndim={rank}. "
                         f"Full shape received: {_shape_tuple(shape)}")
    if spec.dtype is not None and tensor.dtype.base_dtype.name != spec.dtype:
        raise ValueError(where + f"expected dtype={spec.dtype}, found "
                         f"dtype={tensor.dtype.base_dtype.name}")
    if spec.axes and rank is not None:
        dims = shape.as_list()
        for axis, size in spec.axes.items():
            actual = dims[axis] if -rank <= axis < rank else None
            if size is not None and actual is not None and actual != size:
                raise ValueError(where + f"expected axis {axis} of input shape to have value "
                                 f"{size}, but received input with shape "
                                 f"{_shape_tuple(shape)}")


class Layer:
    """Base class of the `tf.layers` layers (`tf.layers.Layer`).

    Subclasses implement `build(input_shape)` (create weights with `add_weight`) and
    `call(inputs, ...)`; `__call__` / `apply` open the layer's scopes around them.

    Args:
      trainable: whether the layer's weights go to TRAINABLE_VARIABLES.
      name: the layer name, also its variable scope; None picks a unique name.
      dtype: the weights' dtype; None uses the first input's dtype.
      activity_regularizer: fn(output) -> loss, averaged over the batch and added to
        the layer's losses.

    Raises:
      TypeError: for an unknown keyword argument.
    """

    def __init__(self, trainable=True, name=None, dtype=None, activity_regularizer=None,
                 **kwargs):
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        for key in ("input_shape", "batch_input_shape", "batch_size", "weights", "autocast"):
            kwargs.pop(key, None)
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {sorted(kwargs)[0]!r}")
        self.trainable = trainable
        self.built = False
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self._activity_regularizer = activity_regularizer
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._losses = []
        self._updates = []
        self.input_spec = None
        self.supports_masking = False
        self._init_set_name(name)
        if scope:
            with vs.variable_scope(scope) as captured:
                self._scope = captured
        else:
            self._scope = None
        self._current_scope = None

    def _init_set_name(self, name):
        if isinstance(name, vs.VariableScope):
            base_name = name.name
            self._name = _unique_layer_name(to_snake_case(type(self).__name__))
        else:
            base_name = name
            self._name = name
        if not name:
            base_name = to_snake_case(type(self).__name__)
            self._name = _unique_layer_name(base_name)
        self._base_name = base_name

    # -- properties ---------------------------------------------------------------------
    name = property(lambda self: self._name, doc="The layer's name.")
    dtype = property(lambda self: None if self._dtype is None else self._dtype.name,
                     doc="The weights' dtype name (None until known).")
    activity_regularizer = property(lambda self: self._activity_regularizer)

    @property
    def scope_name(self):
        """The full name of the layer's variable scope.

        Raises:
          ValueError: before the first call, when the scope is not chosen yet.
        """
        if not self._scope:
            raise ValueError(f'No name available for layer scope because the layer '
                             f'"{self._name}" has not been used yet. The scope name is '
                             "determined the first time the layer instance is called. You "
                             "must therefore call the layer before querying `scope_name`.")
        return self._scope.name

    @property
    def trainable_weights(self):
        """The trainable variables (empty for a non-trainable layer)."""
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        """The non-trainable variables (all of them for a non-trainable layer)."""
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self):
        """Trainable then non-trainable variables."""
        return self.trainable_weights + self.non_trainable_weights

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def losses(self):
        """Regularization losses made by the layer's weights and activity regularizer."""
        return list(self._losses)

    @property
    def updates(self):
        """Update ops (Operations) the layer asked to run with each training step."""
        return list(self._updates)

    # -- what subclasses implement --------------------------------------------------------
    def build(self, input_shape):
        """Creates the weights (subclasses override); marks the layer built."""
        self.built = True

    def call(self, inputs, **kwargs):
        """The layer's computation (subclasses override); the identity here."""
        return inputs

    def compute_output_shape(self, input_shape):
        """The output TensorShape for an input shape (subclasses override).

        Raises:
          NotImplementedError: in the base class, which cannot know it.
        """
        raise NotImplementedError(f"Layer {type(self).__name__} does not implement "
                                  "compute_output_shape.")

    # -- weights, losses, updates --------------------------------------------------------
    def _name_scope(self):
        return self._current_scope.original_name_scope

    def _set_scope(self, scope=None):
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as s:
                    self._scope = s
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as s:
                    self._scope = s

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, partitioner=None, use_resource=None,
                   synchronization=None, aggregation=None, getter=None):
        """Creates (or, when reusing, gets) the variable `<scope>/<name>`.

        Args:
          name: the weight's name in the layer's scope.
          shape: its shape.
          dtype: default the layer's dtype, else float32.
          initializer: default the scope's initializer (else get_variable's default).
          regularizer: fn(variable) -> loss; its result goes to the layer's losses and
            REGULARIZATION_LOSSES (only when the variable is newly created).
          trainable: default True; False (or a non-trainable layer) keeps the variable
            out of TRAINABLE_VARIABLES.
          constraint: fn applied by optimizers after each update.
          partitioner, use_resource, synchronization, aggregation: as get_variable.

        Returns:
          the Variable (or PartitionedVariable).
        """
        if trainable is None:
            trainable = synchronization is not variables.VariableSynchronization.ON_READ
        if dtype is None:
            dtype = self._dtype or dtypes.float32
        existing = set(variable_helpers.global_variables())
        self._set_scope(None)
        reuse = self.built or self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with name_scope(self._name_scope()):
                if initializer is None:
                    initializer = scope.initializer
                variable = (getter or vs.get_variable)(
                    name, shape=shape, dtype=dtypes.as_dtype(dtype), initializer=initializer,
                    trainable=trainable and self.trainable, constraint=constraint,
                    partitioner=partitioner, use_resource=use_resource,
                    synchronization=synchronization, aggregation=aggregation)
                parts = list(variable) if hasattr(variable, "_get_variable_list") else \
                    [variable]
                if regularizer and all(p not in existing for p in parts):
                    for part in parts:
                        with name_scope(name + "/Regularizer"):
                            loss = regularizer(part)
                        if loss is not None:
                            self.add_loss(loss)
        trainable_set = set(variable_helpers.trainable_variables())
        for part in parts:
            if trainable and self.trainable and part in trainable_set:
                self._trainable_weights.append(part)
            else:
                self._non_trainable_weights.append(part)
        return variable

    def add_loss(self, losses, inputs=None):
        """Adds loss tensor(s) to the layer and to REGULARIZATION_LOSSES.
        Callables are called now (graph mode)."""
        new = []
        for loss in nest.flatten(losses):
            if callable(loss):
                loss = loss()
            if loss is None:
                continue
            loss = convert_to_tensor(loss)
            self._losses.append(loss)
            new.append(loss)
        _add_to_collection(new, GraphKeys.REGULARIZATION_LOSSES)

    def add_update(self, updates, inputs=None):
        """Adds update op(s) (Operations, tensors, or callables making them, which are
        called now) to the layer's `updates`."""
        for update in nest.flatten(updates):
            if callable(update) and not isinstance(update, (Tensor, Operation)):
                update = update()
            if update is None:
                continue
            op = update if isinstance(update, Operation) else getattr(update, "op", None)
            if op is None:
                op = convert_to_tensor(update).op
            if op not in self._updates:
                self._updates.append(op)

    def count_params(self):
        """The number of scalars in the layer's weights.

        Raises:
          ValueError: before the layer is built.
        """
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on {self.name}, but the "
                             "layer isn't built. You can build it manually via: "
                             f"`{self.name}.build(batch_input_shape)`.")
        return int(sum(TensorShape(w.shape).num_elements() or 0 for w in self.weights))

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on first use and applies it to `inputs`.

        Args:
          inputs: a Tensor (or something convertible).
          *args, **kwargs: passed to `call` (e.g. `training=`); `scope=` names the
            variable scope on the first call.

        Returns:
          the output tensor(s).

        Raises:
          ValueError: if `inputs` break the layer's input spec, or `call` returns None.
        """
        scope = kwargs.pop("scope", None)
        if not isinstance(inputs, (list, tuple)):
            inputs = convert_to_tensor(inputs)
        self._set_scope(scope)
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as vscope:
            self._current_scope = vscope
            with name_scope(self._name_scope()):
                flat = nest.flatten(inputs)
                specs = nest.flatten(self.input_spec) if self.input_spec is not None else []
                for i, (tensor, spec) in enumerate(zip(flat, specs)):
                    _check_input_spec(self._name, spec, tensor, i)
                if not self.built:
                    if self._dtype is None and flat and isinstance(flat[0], Tensor):
                        self._dtype = flat[0].dtype.base_dtype
                    shapes = nest.map_structure(lambda t: t.shape, inputs)
                    self.build(shapes)
                    self.built = True
                outputs = self.call(inputs, *args, **kwargs)
                if outputs is None:
                    raise ValueError(f"A layer's `call` method should return a Tensor or a "
                                     f"list of Tensors, not None (layer: {self._name}).")
                if self._activity_regularizer is not None:
                    self._handle_activity_regularization(outputs)
        _add_to_collection(self._updates, GraphKeys.UPDATE_OPS)
        return outputs

    def apply(self, inputs, *args, **kwargs):
        """Same as `__call__` (the TF1 spelling)."""
        return self.__call__(inputs, *args, **kwargs)

    def _handle_activity_regularization(self, outputs):
        with name_scope("ActivityRegularizer"):
            for output in nest.flatten(outputs):
                loss = convert_to_tensor(self._activity_regularizer(output))
                batch = math_ops.cast(array_ops.shape(output)[0], loss.dtype)
                self.add_loss(math_ops.truediv(loss, batch))

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} name={self._name!r}>"


def _add_to_collection(elements, key):
    collection = get_default_graph().get_collection_ref(key)
    present = {id(x) for x in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))
