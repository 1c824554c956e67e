"""A producer that is not kafkajs: librdkafka through Python's confluent-kafka, as most non-JVM
services write the input topic.

Usage: python compressed_producer.py BROKERS TOPIC FILE, FILE holding lines
"codec TAB partition TAB key TAB value". Each codec's lines go out from a producer of their own as one compressed batch
per partition (a long linger, then a flush), and each record's "codec partition offset" is printed.
"""

import sys

from confluent_kafka import Producer


def main() -> None:
    brokers, topic, path = sys.argv[1:4]
    by_codec: dict[str, list[list[str]]] = {}
    with open(path, encoding="utf-8") as lines_file:
        text = lines_file.read()
    for line in text.split("\n"):
        if line:
            fields = line.split("\t", 3)
            by_codec.setdefault(fields[0], []).append(fields)
    for codec, lines in by_codec.items():
        producer = Producer(
            {
                "bootstrap.servers": brokers,
                "compression.type": codec,
                "acks": "all",
                "enable.idempotence": True,
                "linger.ms": 60000,
                "batch.num.messages": 100000,
                "batch.size": 4 * 1024 * 1024,
            }
        )
        delivered: list[str] = []
        failed: list[str] = []

        def report(err, msg, codec=codec):
            if err is not None:
                failed.append(str(err))
            else:
                delivered.append(f"{codec} {msg.partition()} {msg.offset()}")

        for _, partition, key, value in lines:
            producer.produce(topic, value=value.encode(), key=key.encode(), partition=int(partition), on_delivery=report)
        if producer.flush(30) != 0 or failed:
            sys.exit(f"{codec}: not every record was delivered: {failed}")
        print("\n".join(delivered))


if __name__ == "__main__":
    main()
