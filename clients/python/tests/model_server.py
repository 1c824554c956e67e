"""An OpenAI-compatible chat model on loopback, the one stand-in these tests use: it answers
POST /v1/chat/completions by saying how many earlier turns it was shown and what the question was,
so a test can tell what history the model received."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List


class LoopbackModel:
    def __init__(self) -> None:
        self.requests: List[List[Dict[str, Any]]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                model.requests.append(body["messages"])
                answer = json.dumps(model.completion(body)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass  # the test's output is for its assertions

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @staticmethod
    def reply_to(messages: List[Dict[str, Any]]) -> str:
        earlier = [m for m in messages[:-1] if m["role"] in ("user", "assistant")]
        return f"I was shown {len(earlier)} earlier turn(s); you asked: {messages[-1]['content']}"

    def completion(self, request: Dict[str, Any]) -> Dict[str, Any]:
        text = self.reply_to(request["messages"])
        return {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()), "model": request["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
