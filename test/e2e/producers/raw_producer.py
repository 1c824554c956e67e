"""Records exactly as given, bytes and all, written by librdkafka (Python's confluent-kafka): what a
producer outside memstream can put on an input topic, a null key, a null value, bytes that are not
UTF-8 and headers included.

Usage: python raw_producer.py BROKERS TOPIC FILE, FILE holding a JSON list of records
{"key": base64 or null, "value": base64 or null, "headers": {name: text}}. They are sent in order
by one idempotent producer (acks=all, murmur2 as the gateway partitions), and each record's
"partition offset" is printed, in order.
"""

import base64
import json
import sys

from confluent_kafka import Producer


def main() -> None:
    brokers, topic, path = sys.argv[1:4]
    with open(path, encoding="utf-8") as records_file:
        records = json.load(records_file)
    producer = Producer(
        {
            "bootstrap.servers": brokers,
            "enable.idempotence": True,
            "acks": "all",
            "partitioner": "murmur2_random",
        }
    )
    placed: list[str | None] = [None] * len(records)
    failed: list[str] = []

    def reporter(i: int):
        def report(err, msg) -> None:
            if err is not None:
                failed.append(f"record {i}: {err}")
            else:
                placed[i] = f"{msg.partition()} {msg.offset()}"

        return report

    decode = lambda field: None if field is None else base64.b64decode(field)
    for i, record in enumerate(records):
        headers = [(name, text.encode()) for name, text in (record.get("headers") or {}).items()]
        producer.produce(
            topic, key=decode(record["key"]), value=decode(record["value"]), headers=headers, on_delivery=reporter(i)
        )
    if producer.flush(30) != 0 or failed:
        sys.exit(f"not every record was delivered: {failed}")
    print("\n".join(p or "" for p in placed))


if __name__ == "__main__":
    main()
