"""When a failed call is tried again: the rule @memstream/client follows, in seconds."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Optional

from .errors import MemstreamError

# A Retry-After longer than this is taken as this: a client waiting an hour looks hung.
RETRY_AFTER_CAP_S = 60.0


@dataclass(frozen=True)
class Retry:
    """Attempts on 429 and 503 (and on lost connections where a repeat is harmless).

    The wait before another try is the longer of the backoff (doubling from ``initial_delay``,
    capped at ``max_delay``, half of it random so clients do not stampede together) and the
    server's Retry-After.
    """

    max_attempts: int = 5
    initial_delay: float = 0.25
    max_delay: float = 10.0
    jitter: Callable[[], float] = random.random  # in [0, 1)

    def delay_after(self, attempt: int, error: MemstreamError, idempotent: bool) -> Optional[float]:
        """Seconds to wait before trying again after failed try ``attempt`` (from 1), or None to give up."""
        if attempt >= self.max_attempts or not should_retry(error, idempotent):
            return None
        capped = min(self.max_delay, self.initial_delay * 2.0 ** (attempt - 1))
        backoff = capped / 2 + capped / 2 * self.jitter()
        return max(backoff, error.retry_after or 0.0)


NO_RETRY = Retry(max_attempts=1)


def should_retry(error: MemstreamError, idempotent: bool) -> bool:
    # Refused at the door (a rate limit, or the gateway's in-flight limit): nothing was written.
    refused_unwritten = error.status == 429 or (error.status == 503 and error.code == "OVERLOADED")
    # Any other 503, or a connection lost before the answer, may have reached the broker after
    # all: only a call whose repeat cannot do the work twice (a read, or a write carrying the
    # caller's own id) is tried again.
    unsure = error.status == 503 or error.code in ("NETWORK_ERROR", "TIMEOUT")
    return refused_unwritten or (unsure and idempotent)


def retry_after_of(header: Optional[str]) -> Optional[float]:
    """Retry-After in seconds; the HTTP-date form is not one our servers send, so it counts as absent."""
    if header is None:
        return None
    try:
        seconds = float(header.strip())
    except ValueError:
        return None
    return min(RETRY_AFTER_CAP_S, seconds) if seconds >= 0 else None
