"""KAOS agent memory kept in memstream: the LocalMemory interface over HTTP."""

from .errors import MemstreamError
from .events import MemoryEvent, SessionMemory
from .memory import MemstreamMemory

__all__ = ["MemoryEvent", "MemstreamError", "MemstreamMemory", "SessionMemory"]
