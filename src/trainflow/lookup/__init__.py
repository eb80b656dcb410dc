"""`tf.lookup`: lookup tables and their initializers (TF 1.15's compat.v1 names)."""
from trainflow._src.lookup.tables import (  # noqa: F401
    KeyValueTensorInitializer, StaticHashTable, TextFileIndex, TextFileInitializer)
from trainflow._src.lookup.vocabulary import StaticVocabularyTable  # noqa: F401
from trainflow.lookup import experimental  # noqa: F401

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer", "experimental"]
