"""The `tf.strings` namespace."""
from trainflow._src.ops.string.string_convert import (  # noqa: F401
    as_string, string_to_hash_bucket as to_hash_bucket,
    string_to_hash_bucket_fast as to_hash_bucket_fast,
    string_to_hash_bucket_strong as to_hash_bucket_strong, string_to_number as to_number)
from trainflow._src.ops.string.string_format import string_format as format  # noqa: F401,A004
from trainflow._src.ops.string.string_ops import (  # noqa: F401
    reduce_join, regex_replace, string_join as join, string_length as length,
    string_lower as lower, string_split_v2 as split, string_upper as upper, substr)
from trainflow._src.ops.string.string_codec import string_strip as strip  # noqa: F401
from trainflow._src.ops.string.regex_match import regex_full_match  # noqa: F401
from trainflow._src.ops.string.bytes_split import bytes_split  # noqa: F401
from trainflow._src.ops.string.ngrams import ngrams, unsorted_segment_join  # noqa: F401
from trainflow._src.ops.string.unicode_ops import (  # noqa: F401
    unicode_decode, unicode_decode_with_offsets, unicode_encode, unicode_script, unicode_split,
    unicode_split_with_offsets, unicode_transcode)
