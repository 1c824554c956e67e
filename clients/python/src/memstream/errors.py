"""The one exception the client raises, read out of whichever envelope the family answered in."""

from __future__ import annotations

from typing import Any, Dict, Literal, Optional

Family = Literal["evermemos", "ark", "memory-agent", "memory-service", "kaos"]


class MemstreamError(Exception):
    """A call the server refused, or one that never got an answer.

    ``code`` is the family's own code as the server sent it (``RESOURCE_NOT_FOUND`` for EverMemOS,
    ``not_found`` for memory-service, ...), so code written against a family's documentation keeps
    working. Failures without an answer have ``status`` 0 and the codes ``TIMEOUT`` or
    ``NETWORK_ERROR``. ``retry_after`` is the server's Retry-After in seconds, when it sent one.
    """

    def __init__(
        self,
        *,
        status: int,
        family: Family,
        code: str,
        message: str,
        body: Any = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.family: Family = family
        self.code = code
        self.message = message
        self.body = body
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"MemstreamError(status={self.status}, family={self.family!r}, code={self.code!r}, message={self.message!r})"


def error_from_answer(family: Family, status: int, body: Any, retry_after: Optional[float] = None) -> MemstreamError:
    """Code and message from EverMemOS ``{status, code, message}``, ARK ``{error, code}``,
    memory-service ``{error, code, details}``, KAOS ``{detail, code}`` or the Memory Agent
    ``{error: {code, message}}``."""
    fields: Dict[str, Any] = body if isinstance(body, dict) else {}
    error = fields.get("error")
    nested: Dict[str, Any] = error if isinstance(error, dict) else {}
    code = _first_text(fields.get("code"), nested.get("code")) or f"HTTP_{status}"
    text_body = body if isinstance(body, str) and body else None
    message = _first_text(fields.get("message"), fields.get("error"), fields.get("detail"), nested.get("message"), text_body)
    return MemstreamError(status=status, family=family, code=code, message=message or f"HTTP {status}", body=body, retry_after=retry_after)


def _first_text(*values: Any) -> Optional[str]:
    return next((v for v in values if isinstance(v, str)), None)
