"""The Memory Agent: rolling summaries and the context an agent starts a round with."""

from __future__ import annotations

from .._operation import Call, Family, M, dump, operation
from ..models import memory_agent as ma
from ..routes import MemoryAgentRoutes as R


class MemoryAgent(Family[M]):
    @operation(R.summaries)
    def summaries(self, conversation_id: str) -> Call[ma.Summaries]:
        """Every summary row of the conversation, oldest first: the version chain with its statuses."""
        return Call(query=dump(ma.SummariesQuery, {"conversation_id": conversation_id}))

    @operation(R.context)
    def context(self, conversation_id: str) -> Call[ma.AgentContext]:
        """The latest completed summary and every message after it."""
        return Call(query=dump(ma.ContextQuery, {"conversation_id": conversation_id}))

    @operation(R.context)
    def context_text(self, conversation_id: str) -> Call[str]:
        """The same, rendered as one prompt-ready string."""
        return Call(query=dump(ma.ContextQuery, {"conversation_id": conversation_id, "format": "text"}))
