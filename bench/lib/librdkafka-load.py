"""The load of `npm run bench:librdkafka`: COUNT group chat messages over GROUPS groups, written
by one confluent-kafka (librdkafka) producer with the producer guide's settings and CODEC.

Usage: python librdkafka-load.py BROKERS TOPIC CODEC COUNT GROUPS TAG. The envelopes are built
before the clock starts, so the rate is the client's and the broker's, not Python's JSON. Prints
one JSON line: the wall-clock times (epoch ms) of the first produce and of flush's return.
"""

import json
import random
import sys
import time
import uuid
from datetime import datetime, timezone

from confluent_kafka import Producer

WORDS = "the we a meeting plan lunch deploy review ticket release today tomorrow ok sure thanks why how".split()


def main() -> None:
    brokers, topic, codec, count, groups, tag = sys.argv[1:7]
    count, groups = int(count), int(groups)
    rng = random.Random(tag)
    now = datetime.now(timezone.utc).isoformat()
    records = []
    for i in range(count):
        group = f"{tag}-g{i % groups}"
        content = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
        data = {"group_id": group, "message_id": f"{tag}-{i}", "create_time": now, "sender": "u", "content": content}
        envelope = {"id": str(uuid.uuid4()), "type": "group_chat.message.received", "occurred_at": now, "data": data}
        records.append((group.encode(), json.dumps(envelope).encode()))
    producer = Producer(
        {
            "bootstrap.servers": brokers,
            "enable.idempotence": True,
            "acks": "all",
            "compression.type": codec,
            "partitioner": "murmur2_random",
            # as the figures in docs/performance.md were measured
            "batch.size": 512 * 1024,
        }
    )
    failures = []

    def report(err, _msg) -> None:
        if err is not None:
            failures.append(str(err))

    started = time.time()
    for key, value in records:
        while True:
            try:
                producer.produce(topic, key=key, value=value, on_delivery=report)
                break
            except BufferError:  # the local queue is full: let deliveries drain it
                producer.poll(0.05)
        producer.poll(0)
    left = producer.flush(120)
    flushed = time.time()
    if left or failures:
        sys.exit(f"{left} records not delivered; errors: {failures[:3]}")
    print(json.dumps({"started_ms": started * 1000, "flushed_ms": flushed * 1000, "produced": count}))


if __name__ == "__main__":
    main()
