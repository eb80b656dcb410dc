"""I/O ops: readers and parsing."""
