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
    memory_id: str
    conversation_id: str
    memory_text: Optional[str] = None
    start_sequence: int
    end_sequence: int
    base_memory_id: Optional[str] = None
    status: Literal["processing", "completed", "failed"]
    created_at: str
    generation_time_ms: Optional[float] = None
    attempts: int
    error: Optional[str] = None


class Summaries(Answer):
    conversation_id: str
    summaries: List[SummaryRow]


class ContextMemory(Answer):
    memory_id: str
    memory_text: str
    start_sequence: int
    end_sequence: int


class AgentContext(Answer):
    conversation_id: str
    memory: Optional[ContextMemory] = None
    gap_messages: List[Dict[str, Any]]
