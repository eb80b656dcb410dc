"""`tf.data.Iterator` (TF 1.15's graph-mode iterator) and the one-shot, initializable,
reinitializable (`from_structure`) and feedable (`from_string_handle`) kinds.

Op names and colocations are TF 1.15's: IteratorV2 "IteratorV2", OneShotIterator
"OneShotIterator", MakeIterator "MakeIterator" (or "make_initializer"), IteratorGetNext
"IteratorGetNext"; an iterator of a dataset sits with the dataset's op, get_next with the
iterator.
"""
import warnings

from trainflow._src.data import element_codec
from trainflow._src.data import structure as st
from trainflow._src.framework import dtypes
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import colocate_with, get_default_graph, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.dataset import iterator_ops as iterator_kernels  # noqa: F401
from trainflow._src.ops.dataset import iterator_state  # noqa: F401 - (De)SerializeIterator
from trainflow._src.ops.dataset import optimize_ops  # noqa: F401 - OptimizeDataset

_STATEFUL_SOURCES = {"Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "VariableV2",
                     "Variable", "VarHandleOp"}

# TF's warning for get_next called over and over (usually inside a training loop).
GET_NEXT_CALL_WARNING_THRESHOLD = 32
GET_NEXT_CALL_WARNING_MESSAGE = (
    "An unusually high number of `Iterator.get_next()` calls was detected. "
    "This often indicates that `Iterator.get_next()` is being called inside "
    "a training loop, which will cause gradual slowdown and eventual resource "
    "exhaustion. If this is the case, restructure your code to call "
    "`next_element = iterator.get_next()` once outside the loop, and use "
    "`next_element` as the input to some computation that is invoked inside "
    "the loop.")
# The collection of every iterator resource in the graph (CheckpointInputPipelineHook).
GLOBAL_ITERATORS = "iterators"


def _same_structure(a, b):
    """Whether nests `a` and `b` nest alike (tf.data nesting: tuples and dicts)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b) and \
            all(_same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and \
            all(_same_structure(x, y) for x, y in zip(a, b))
    return True


def _legacy_structure(output_types, output_shapes, output_classes):
    """The Structure of from_structure/from_string_handle's arguments; TypeError when
    the shapes (or classes) do not nest as the types do."""
    for what, nest in (("output_shapes", output_shapes), ("output_classes", output_classes)):
        if nest is not None and not _same_structure(output_types, nest):
            raise TypeError(f"The structure of {what} {nest!r} does not match the structure "
                            f"of output_types {output_types!r}")
    return st.Structure.of(output_types, output_shapes, output_classes)


class Iterator(st.HasElementStructure):
    """An iterator resource with the Structure of its elements."""

    def __init__(self, iterator_resource, initializer, output_types, output_shapes,
                 output_classes):
        if output_types is None or output_shapes is None or output_classes is None:
            raise ValueError("If `structure` is not specified, all of `output_types`, "
                             "`output_shapes`, and `output_classes` must be specified.")
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._structure = st.Structure.of(output_types, output_shapes, output_classes)
        self._get_next_call_count = 0
        self._string_handle = apply_op("IteratorToStringHandle",
                                       resource_handle=iterator_resource).outputs[0]
        iterator_resource.graph.add_to_collection(GLOBAL_ITERATORS, iterator_resource)

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None):
        """An uninitialized iterator for datasets of this structure; `make_initializer`
        points it at one (reinitializable iterator)."""
        structure = _legacy_structure(output_types, output_shapes, output_classes)
        handle = apply_op("IteratorV2", container="", shared_name=shared_name or "",
                          output_types=structure.flat_types,
                          output_shapes=structure.flat_shapes).outputs[0]
        return Iterator(handle, None, structure.types(), structure.shapes(),
                        structure.classes())

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None):
        """An iterator that reads whichever iterator `string_handle` names when run
        (feedable iterator)."""
        structure = _legacy_structure(output_types, output_shapes, output_classes)
        string_handle = convert_to_tensor(string_handle, dtypes.string)
        handle = apply_op("IteratorFromStringHandleV2", string_handle=string_handle,
                          output_types=structure.flat_types,
                          output_shapes=structure.flat_shapes).outputs[0]
        return Iterator(handle, None, structure.types(), structure.shapes(),
                        structure.classes())

    @property
    def initializer(self):
        """The op that (re)starts this iterator over its dataset."""
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """The op that starts this iterator over `dataset` (of a compatible structure):
        ValueError when the nesting differs, TypeError for other classes, types or
        incompatible shapes."""
        with name_scope(name, "make_initializer") as scope:
            self._check_dataset(dataset)
            dataset = apply_options(dataset)
        with colocate_with(self._iterator_resource.op):
            return apply_op("MakeIterator", dataset=dataset._variant_tensor,
                            iterator=self._iterator_resource, name=scope)

    def _check_dataset(self, dataset):
        mine, theirs = self._structure, dataset._structure
        if not _same_structure(mine.template, theirs.template):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{self.output_types} and {dataset.output_types}")
        pairs = list(zip(mine.components, theirs.components))
        if any(a.cls is not b.cls for a, b in pairs):
            raise TypeError(f"Expected output classes {self.output_classes!r} but got dataset "
                            f"with output class {dataset.output_classes!r}.")
        if any(a.dtype != b.dtype for a, b in pairs):
            raise TypeError(f"Expected output types {self.output_types!r} but got dataset "
                            f"with output types {dataset.output_types!r}.")
        if any(not a.shape.is_compatible_with(b.shape) for a, b in pairs):
            raise TypeError(f"Expected output shapes compatible with {self.output_shapes!r} "
                            f"but got dataset with output shapes {dataset.output_shapes!r}.")

    def get_next(self, name=None):
        """The next element, a nest of tensors; running it past the end raises
        OutOfRangeError. Warns (TF's warning) when called more than 32 times."""
        self._get_next_call_count += 1
        if self._get_next_call_count > GET_NEXT_CALL_WARNING_THRESHOLD:
            warnings.warn(GET_NEXT_CALL_WARNING_MESSAGE, stacklevel=2)
        with colocate_with(self._iterator_resource.op):
            op = apply_op("IteratorGetNext", iterator=self._iterator_resource,
                          output_types=self._structure.flat_types,
                          output_shapes=self._structure.flat_shapes, name=name)
        return element_codec.decode(self._structure, op.outputs)

    def string_handle(self, name=None):
        """A scalar string tensor naming this iterator, to feed `from_string_handle`
        (the same tensor every time unless `name` is given)."""
        if name is None:
            return self._string_handle
        return apply_op("IteratorToStringHandle", resource_handle=self._iterator_resource,
                        name=name).outputs[0]


def apply_options(dataset):
    """`dataset` with the rewrites its options ask for (TF's `_apply_options`): an
    OptimizeDataset "make_sloppy" when experimental_deterministic is False."""
    options = getattr(dataset, "_options", None)
    if options is None or options.deterministic is not False:
        return dataset
    optimizations = convert_to_tensor(["make_sloppy"], dtypes.string, name="optimizations")
    op = apply_op("OptimizeDataset", input_dataset=dataset._variant_tensor,
                  optimizations=optimizations, output_types=dataset._structure.flat_types,
                  output_shapes=dataset._structure.flat_shapes)
    return dataset._derived(op.outputs[0], dataset._structure)


def initializable_iterator(dataset, shared_name=None):
    """`dataset.make_initializable_iterator()`."""
    dataset = apply_options(dataset)
    s = dataset._structure
    with colocate_with(dataset._variant_tensor.op):
        handle = apply_op("IteratorV2", container="", shared_name=shared_name or "",
                          output_types=s.flat_types, output_shapes=s.flat_shapes).outputs[0]
        init = apply_op("MakeIterator", dataset=dataset._variant_tensor, iterator=handle)
        return Iterator(handle, init, s.types(), s.shapes(), s.classes())


def _ops_behind(tensor):
    """The ops `tensor` depends on (data and control inputs), in creation order."""
    seen, stack = set(), [tensor.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    order = {op: i for i, op in enumerate(tensor.graph.get_operations())}
    return sorted(seen, key=order.__getitem__)


def _copy_into(fg, tensor):
    """`tensor`'s subgraph rebuilt in function graph `fg`; returns the copy of `tensor`."""
    copies = {}
    for op in _ops_behind(tensor):
        if op.type in _STATEFUL_SOURCES:
            raise ValueError(
                "Failed to create a one-shot iterator for a dataset. "
                "`Dataset.make_one_shot_iterator()` does not support datasets that capture "
                f"stateful objects, such as a `Variable` or `LookupTable` (found {op.type} "
                f"op {op.name}). In these cases, use `Dataset.make_initializable_iterator()`.")
        new = fg.create_op(op.type, [copies[t] for t in op.inputs],
                           [t.dtype for t in op.outputs], name=op.name + "/",
                           attrs=dict(op._attrs), compute_device=False)
        for old_t, new_t in zip(op.outputs, new.outputs):
            copies[old_t] = new_t
    return copies[tensor]


def one_shot_iterator(dataset):
    """`dataset.make_one_shot_iterator()`: its pipeline rebuilt in a `dataset_factory`
    function, so the iterator needs no initializer."""
    dataset = apply_options(dataset)
    graph = get_default_graph()
    fg = FuncGraph(f"_make_dataset_{id(dataset):x}", graph)
    with fg.as_default():
        fg.outputs = [_copy_into(fg, dataset._variant_tensor)]
    s = dataset._structure
    with colocate_with(dataset._variant_tensor.op):
        handle = apply_op("OneShotIterator", dataset_factory=fg, output_types=s.flat_types,
                          output_shapes=s.flat_shapes, container="", shared_name="",
                          name="OneShotIterator").outputs[0]
        return Iterator(handle, None, s.types(), s.shapes(), s.classes())


def make_one_shot_iterator(dataset):
    """`tf.data.make_one_shot_iterator(dataset)`."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """`tf.data.make_initializable_iterator(dataset, shared_name)`."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes
