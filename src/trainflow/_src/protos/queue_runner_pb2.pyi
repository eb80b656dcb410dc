from trainflow._src.protos import error_codes_pb2 as _error_codes_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class QueueRunnerDef(_message.Message):
    __slots__ = ("queue_name", "enqueue_op_name", "close_op_name", "cancel_op_name", "queue_closed_exception_types")
    QUEUE_NAME_FIELD_NUMBER: _ClassVar[int]
    ENQUEUE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    CLOSE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    CANCEL_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    QUEUE_CLOSED_EXCEPTION_TYPES_FIELD_NUMBER: _ClassVar[int]
    queue_name: str
    enqueue_op_name: _containers.RepeatedScalarFieldContainer[str]
    close_op_name: str
    cancel_op_name: str
    queue_closed_exception_types: _containers.RepeatedScalarFieldContainer[_error_codes_pb2.Code]
    def __init__(self, queue_name: _Optional[str] = ..., enqueue_op_name: _Optional[_Iterable[str]] = ..., close_op_name: _Optional[str] = ..., cancel_op_name: _Optional[str] = ..., queue_closed_exception_types: _Optional[_Iterable[_Union[_error_codes_pb2.Code, str]]] = ...) -> None: ...
