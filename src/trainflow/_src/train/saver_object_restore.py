"""Restoring an object-based checkpoint (written by tf.train.Checkpoint) with a name-based
Saver: the checkpoint's object graph maps each variable's graph name to its key."""
from trainflow._src.framework import errors
from trainflow._src.train.checkpoint_reader import NewCheckpointReader
from trainflow._src.train.saveable_object import all_saveable_objects, op_list_to_dict


def object_graph_key_mapping(checkpoint_path):
    """{variable full name: checkpoint key} from the object graph, or None if the checkpoint
    has no object graph."""
    with NewCheckpointReader(checkpoint_path) as reader:
        graph = reader.get_object_graph()
    if graph is None:
        return None
    names_to_keys = {}
    for node in graph.nodes:
        for attribute in node.attributes:
            names_to_keys[attribute.full_name] = attribute.checkpoint_key
    return names_to_keys


def saver_from_object_based_checkpoint(checkpoint_path, var_list, builder, names_to_keys,
                                       cached_saver, saver_cls):
    """A Saver whose keys are the object-based checkpoint's keys of `var_list`'s variables.

    Raises:
      NotFoundError: variables of `var_list` are not in the checkpoint (names listed).
    """
    if cached_saver is not None:
        return cached_saver
    if not var_list:
        var_list = all_saveable_objects()
    names_to_saveables = var_list if isinstance(var_list, dict) else op_list_to_dict(var_list)
    current = set(names_to_saveables)
    known = set(names_to_keys)
    missing = current - known
    if missing:
        extra = known - current
        raise errors.NotFoundError(
            None, None,
            f"\n\nExisting variables not in the checkpoint: {', '.join(sorted(missing))}\n\n"
            "Variables names when this checkpoint was written which don't exist now: "
            f"{', '.join(sorted(extra))}\n\n({len(current & known)} variable name(s) did "
            f"match)\n\nCould not find some variables in the checkpoint {checkpoint_path} "
            "(see names above). Saver was attempting to load an object-based checkpoint "
            "(saved using tf.train.Checkpoint) using variable names.")
    renamed = {names_to_keys[name]: value for name, value in names_to_saveables.items()}
    return saver_cls(var_list=renamed, builder=builder)
