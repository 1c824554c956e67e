"""Schemathesis hooks for our conformance runs (run-conformance.ts names this file in SCHEMATHESIS_HOOKS).

Schemathesis has no writer for newline-delimited JSON, so it dropped every case it drew for
application/x-ndjson and application/jsonl bodies: half the cases of ARK's relay, enough for its
health check to give up on the operation (filter_too_much) and leave the line-by-line path
untested. The document describes such a body by what its lines hold: one value, or a list of them
(ARK's chunks, an export's records). So a list goes one element per line and anything else on a
line of its own; an empty list is an empty body, which the server refuses as it should.
"""

import json

import schemathesis


@schemathesis.serializer("application/x-ndjson", "application/jsonl")
def ndjson(ctx, value):
    lines = value if isinstance(value, list) else [value]
    return "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")
