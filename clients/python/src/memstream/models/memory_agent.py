"""The Memory Agent: rolling summaries and the context an agent starts a round with."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional

from ._base import Answer, Request


class SummariesQuery(Request):
    conversation_id: str


class ContextQuery(Request):
    conversation_id: str
    format: Optional[Literal["json", "text"]] = None


class SummaryRow(Answer):
    """One memory row of the version chain; ``memory_text`` is empty while it is being made."""

    memory_id: int
    conversation_id: str
    memory_text: str
    start_sequence: int
    end_sequence: int
    base_memory_id: Optional[int]
    status: Literal["processing", "completed", "failed"]
    created_at: str
    generation_time_ms: Optional[float]
    attempts: int
    error: Optional[str]


class Summaries(Answer):
    conversation_id: str
    summaries: List[SummaryRow]


class ContextMemory(Answer):
    memory_id: int
    memory_text: str
    start_sequence: int
    end_sequence: int


class AgentContext(Answer):
    conversation_id: str
    memory: Optional[ContextMemory]
    gap_messages: List[Dict[str, Any]]
