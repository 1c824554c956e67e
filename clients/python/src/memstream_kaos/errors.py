from typing import Optional


class MemstreamError(Exception):
    """An answer the client cannot turn into a LocalMemory result: the status, and the server's code and detail."""

    def __init__(self, status: int, code: Optional[str], detail: str):
        super().__init__(f"memstream answered {status} {code or ''}: {detail}".strip())
        self.status = status
        self.code = code
        self.detail = detail
