"""Writes group chat messages straight to memstream's input topic with confluent-kafka
(librdkafka), then asks memstream's API until each one is stored.

    pip install confluent-kafka
    python produce.py BROKERS TOPIC_PREFIX API_BASE [GROUP_ID] [COUNT]
    python produce.py localhost:9092 "" http://localhost:8080 team-42 5

Prints one line per message: "event_id partition offset sequence". See "For producer authors"
in docs/kafka-topics.md for why each setting below is what it is.
"""

import json
import sys
import time
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timezone

from confluent_kafka import Producer


def envelope(group_id: str, message_id: str, content: str) -> tuple[str, bytes]:
    event_id = str(uuid.uuid4())  # the idempotency key: a retry of this event keeps it
    # A zone is required; a naive datetime.utcnow().isoformat() gets the record dead-lettered.
    now = datetime.now(timezone.utc).isoformat()
    record = {
        "id": event_id,
        "type": "group_chat.message.received",
        "occurred_at": now,
        "data": {  # exactly the body of POST /api/v1/memories
            "group_id": group_id,
            "message_id": message_id,
            "create_time": now,
            "sender": "example-bot",
            "content": content,
        },
    }
    return event_id, json.dumps(record, ensure_ascii=False).encode("utf-8")


def wait_until_stored(api_base: str, event_id: str, timeout_s: float = 60) -> int:
    """The record's sequence in its conversation, once the converter has stored it."""
    url = f"{api_base}/api/v1/stats/request?request_id={event_id}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                result = json.load(answer)["result"]
        except urllib.error.HTTPError as err:
            if err.code != 404:  # 404: the converter has not reached the record yet
                raise
            time.sleep(0.2)
            continue
        if result["status"] in ("stored", "extracted"):
            return result["sequence"]
        if result["status"] == "failed":
            sys.exit(f"{event_id} was refused: {result['error']}")
        time.sleep(0.2)
    sys.exit(f"{event_id} was not stored within {timeout_s} s")


def main() -> None:
    brokers, prefix, api_base = sys.argv[1:4]
    group_id = sys.argv[4] if len(sys.argv) > 4 else "example-group"
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    producer = Producer(
        {
            "bootstrap.servers": brokers,
            # No duplicates and no reordering when librdkafka retries a send.
            "enable.idempotence": True,
            "acks": "all",
            "compression.type": "lz4",
            # Kafka's Java client and memstream's gateway hash keys with murmur2; librdkafka's
            # default (consistent_random) would send this group to another partition than the
            # gateway's writes for it, and the two would lose their order.
            "partitioner": "murmur2_random",
        }
    )
    where: dict[str, str] = {}
    failures: list[str] = []

    def on_delivery(event_id: str):
        def report(err, msg) -> None:
            if err is not None:
                failures.append(f"{event_id}: {err}")
            else:
                where[event_id] = f"{msg.partition()} {msg.offset()}"

        return report

    ids = []
    for i in range(count):
        event_id, value = envelope(group_id, f"{group_id}-{i}", f"message {i} from librdkafka")
        ids.append(event_id)
        # The key is the group: one group, one partition, stored in the order produced.
        producer.produce(
            f"{prefix}ingest.group-chat.v1", key=group_id.encode(), value=value, on_delivery=on_delivery(event_id)
        )
    if producer.flush(30) != 0 or failures:
        sys.exit(f"not every message was delivered: {failures}")
    for event_id in ids:
        print(event_id, where[event_id], wait_until_stored(api_base, event_id), flush=True)

if __name__ == "__main__":
    main()
