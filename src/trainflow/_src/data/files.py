"""Dataset methods over files (list_files); mixed into DatasetV1."""


class FileMethods:
    """Mixed into DatasetV1: its methods build ops with `self._apply` and `self._traced`."""
