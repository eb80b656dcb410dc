"""`tf.resource_loader`: paths of the data files beside a program."""
from trainflow._src.gfile.resource_loader import (  # noqa: F401
    get_data_files_path, get_path_to_datafile, get_root_dir_with_all_resources, load_resource,
    readahead_file_path)

__all__ = ["get_data_files_path", "get_path_to_datafile", "get_root_dir_with_all_resources",
           "load_resource", "readahead_file_path"]
