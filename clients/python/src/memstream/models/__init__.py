"""Request parts and answers of every family, as pydantic models (see routes.py for which goes where)."""

from . import ark, evermemos, kaos, memory_agent, memory_service

__all__ = ["ark", "evermemos", "kaos", "memory_agent", "memory_service"]
