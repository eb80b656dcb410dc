"""TensorFlow's lookup-table ops (HashTableV2, LookupTableFindV2 ...) and their resources."""
