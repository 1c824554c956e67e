"""The retry rule against a real ingest gateway that lets one write in at a time and has no
converter behind it (MEMSTREAM_HELD_GATEWAY_URL; the distributed run starts it with
REQUEST_SYNC_TIMEOUT_MS=3000): a write holds the one place for the whole 3 s sync wait, even
after its client stopped waiting, so the next is refused with 503 OVERLOADED and Retry-After."""

import os
import time

from memstream import Memstream, MemstreamError, Retry
from memstream.models.evermemos import Accepted

from support import label, rejects


def held_gateway(**options) -> Memstream:
    url = os.environ.get("MEMSTREAM_HELD_GATEWAY_URL")
    assert url, "MEMSTREAM_HELD_GATEWAY_URL must point at a gateway with GATEWAY_MAX_IN_FLIGHT=1 (test/e2e/python-client.test.ts)"
    return Memstream(url, api_key=os.environ["MEMSTREAM_API_KEY"], **options)


def test_a_timed_out_attempt_fails_with_timeout_and_a_refused_write_is_retried_after_retry_after():
    group = f"retry_{label()}"

    def message(message_id: str) -> dict:
        return {"group_id": group, "message_id": message_id, "create_time": "2025-01-15T10:00:00Z", "sender": "u1", "content": message_id}

    # The backoff alone is at most 0.2 s: only the server's Retry-After explains a wait of seconds.
    patient = held_gateway(retry=Retry(max_attempts=5, initial_delay=0.05, max_delay=0.2))
    with held_gateway(retry=False, timeout=0.3) as hasty, held_gateway(retry=False) as once, patient:
        # This write takes the one place for 3 s; its client gives up after 0.3 s.
        rejects(lambda: hasty.evermemos.write(message("held")), "evermemos", 0, "TIMEOUT")
        refused = rejects(lambda: once.evermemos.write(message("refused")), "evermemos", 503, "OVERLOADED")
        assert refused.retry_after == 5.0
        started = time.monotonic()
        retried = patient.evermemos.write(message("retried"))
        assert time.monotonic() - started >= 4.9, "the second attempt waited for the Retry-After"
        # With no converter the gateway answers 202 once Kafka has the write.
        assert isinstance(retried, Accepted)
    assert isinstance(refused, MemstreamError)
