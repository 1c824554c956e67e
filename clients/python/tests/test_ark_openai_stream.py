"""ARK's OpenAI-compatible streaming, end to end through the real OpenAI SDK: ark-api answers a
streaming chat completion by reading the query's stream from the memory service
(`?from-beginning=true&wait-for-query=<seconds>`) and forwarding each non-blank line followed by a
blank line. Here that proxy is a transport of the SDK's own HTTP client, reading memstream."""

import json
import os
import uuid
from typing import Iterator

import httpx
import openai
import pytest

from conftest import server_url


def credentials() -> dict:
    key = os.environ.get("MEMSTREAM_API_KEY")
    return {"X-API-Key": key} if key else {}


def ark_api(query: str, wait_seconds: int) -> openai.OpenAI:
    """An OpenAI client whose /chat/completions is ark-api's streaming proxy for `query`."""

    def proxied_lines() -> Iterator[bytes]:
        url = f"{server_url()}/stream/{query}?from-beginning=true&wait-for-query={wait_seconds}"
        with httpx.Client(timeout=httpx.Timeout(10.0, read=None)) as memory:
            with memory.stream("GET", url, headers=credentials()) as response:
                if response.status_code != 200:
                    error = json.loads(response.read())["error"]  # ark-api requires message and type
                    yield f"data: {json.dumps({'error': {'status': response.status_code, **error}})}\n\n".encode()
                    return
                for line in response.iter_lines():
                    if line.strip():
                        yield (line + "\n\n").encode()

    def handle(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions")
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=proxied_lines())

    return openai.OpenAI(base_url="http://ark-api/openai/v1", api_key="unused", http_client=httpx.Client(transport=httpx.MockTransport(handle)))


def relay(query: str, chunks: list) -> None:
    body = "".join(json.dumps(c) + "\n" for c in chunks)
    answer = httpx.post(f"{server_url()}/stream/{query}", content=body, headers={"content-type": "application/x-ndjson", **credentials()})
    assert answer.status_code == 200, answer.text


def chunk(query: str, content: str, finish=None) -> dict:
    delta = {"content": content} if content else {}
    return {"id": f"chatcmpl-{query}", "object": "chat.completion.chunk", "created": 1764000000, "model": "weather-agent",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def stream(client: openai.OpenAI):
    return client.chat.completions.create(model="agent/weather", messages=[{"role": "user", "content": "Weather?"}], stream=True)


def test_the_sdk_reads_a_completed_query_stream():
    query = f"openai-query-{uuid.uuid4().hex[:8]}.weather"
    relay(query, [chunk(query, "Sunny"), chunk(query, " and warm."), chunk(query, "", "stop")])
    completed = httpx.post(f"{server_url()}/stream/{query}/complete", json={}, headers=credentials())
    assert completed.status_code == 200 and completed.json()["status"] == "completed"
    parts = list(stream(ark_api(query, 5)))
    assert [p.choices[0].delta.content for p in parts] == ["Sunny", " and warm.", None]
    assert parts[-1].choices[0].finish_reason == "stop"


def test_the_sdk_raises_the_timeout_of_a_query_that_never_streams():
    with pytest.raises(openai.APIError) as raised:
        list(stream(ark_api(f"openai-query-{uuid.uuid4().hex[:8]}", 1)))
    assert "Request timeout waiting for streaming query response" in str(raised.value)


def test_the_sdk_raises_an_agent_error_chunk_after_the_chunks_before_it():
    query = f"openai-query-{uuid.uuid4().hex[:8]}"
    relay(query, [chunk(query, "Partial"), {"error": {"message": "model quota exceeded", "type": "server_error", "code": "model_error"}}])
    got = []
    with pytest.raises(openai.APIError) as raised:
        for part in stream(ark_api(query, 5)):
            got.append(part.choices[0].delta.content)
    assert got == ["Partial"]
    assert "model quota exceeded" in str(raised.value)
