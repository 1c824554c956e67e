"""memstream's Python client: every API family, blocking (Memstream) and asyncio (AsyncMemstream)."""

from ._retry import Retry
from .client import AsyncMemstream, Memstream, Options
from .errors import Family, MemstreamError
from .families.evermemos import is_accepted

__all__ = ["AsyncMemstream", "Family", "Memstream", "MemstreamError", "Options", "Retry", "is_accepted"]
