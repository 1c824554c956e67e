"""What the client decides on its own, without a server: the retry rule, each family's error
envelope, the event-stream parser, and request models that catch a typo before it is sent."""

import pydantic
import pytest

from memstream import MemstreamError, Retry
from memstream._retry import retry_after_of, should_retry
from memstream._sse import StreamReader, parse_frame
from memstream.errors import error_from_answer
from memstream.families.ark import decode_ark_frame
from memstream.families.evermemos import EverMemOs
from memstream.families.memory_service import decode_response_frame
from memstream.models.ark import ArkChunkEvent, ArkEnd, ArkLive
from memstream.models.evermemos import GroupChatMessage
from memstream.models.memory_service import CreateMessageRequest, ResponseEnd, ResponseToken


def error(status: int, code: str, retry_after=None) -> MemstreamError:
    return MemstreamError(status=status, family="evermemos", code=code, message="m", retry_after=retry_after)


def test_refusals_before_anything_was_written_are_retried_for_every_call():
    assert should_retry(error(429, "RATE_LIMITED"), idempotent=False)
    assert should_retry(error(503, "OVERLOADED"), idempotent=False)


def test_a_failure_that_may_have_stored_the_write_is_retried_only_when_a_repeat_is_harmless():
    for unsure in (error(503, "DEPENDENCY_UNAVAILABLE"), error(503, "service_unavailable"), error(0, "TIMEOUT"), error(0, "NETWORK_ERROR")):
        assert should_retry(unsure, idempotent=True)
        assert not should_retry(unsure, idempotent=False)


def test_client_errors_and_server_faults_are_never_retried():
    for final in (error(400, "INVALID_PARAMETER"), error(404, "not_found"), error(500, "SYSTEM_ERROR"), error(409, "conflict")):
        assert not should_retry(final, idempotent=True)


def test_the_backoff_doubles_with_half_of_it_random_up_to_the_cap():
    low, high = Retry(initial_delay=1, max_delay=5, jitter=lambda: 0.0), Retry(initial_delay=1, max_delay=5, jitter=lambda: 0.999)
    refused = error(429, "RATE_LIMITED")
    assert [low.delay_after(n, refused, False) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 2.5]
    assert [round(high.delay_after(n, refused, False), 2) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]


def test_the_server_retry_after_wins_over_a_shorter_backoff_and_attempts_end():
    rule = Retry(max_attempts=3, initial_delay=0.01, max_delay=0.1, jitter=lambda: 0.5)
    assert rule.delay_after(1, error(503, "OVERLOADED", retry_after=5.0), False) == 5.0
    assert rule.delay_after(3, error(503, "OVERLOADED"), False) is None
    assert Retry(max_attempts=1).delay_after(1, error(429, "x"), True) is None


def test_retry_after_is_read_in_seconds_and_capped():
    assert (retry_after_of("5"), retry_after_of(" 0.5 "), retry_after_of("3600"), retry_after_of("Wed, 21 Oct 2015 07:28:00 GMT"), retry_after_of(None)) == (5.0, 0.5, 60.0, None, None)


@pytest.mark.parametrize(
    ("family", "body", "code", "message"),
    [
        ("evermemos", {"status": "failed", "code": "RESOURCE_NOT_FOUND", "message": "no group", "timestamp": "t", "path": "/p"}, "RESOURCE_NOT_FOUND", "no group"),
        ("ark", {"error": "bad batch", "code": "INVALID_PARAMETER"}, "INVALID_PARAMETER", "bad batch"),
        ("memory-service", {"error": "gone", "code": "not_found", "details": {"resource": "conversation"}}, "not_found", "gone"),
        ("kaos", {"detail": "no session", "code": "RESOURCE_NOT_FOUND"}, "RESOURCE_NOT_FOUND", "no session"),
        ("memory-agent", {"error": {"code": "RESOURCE_NOT_FOUND", "message": "no conversation"}}, "RESOURCE_NOT_FOUND", "no conversation"),
        ("ark", "upstream said no", "HTTP_404", "upstream said no"),
    ],
)
def test_each_family_envelope_gives_its_own_code_and_message(family, body, code, message):
    err = error_from_answer(family, 404, body, 1.5)
    assert (err.family, err.status, err.code, str(err), err.retry_after, err.body) == (family, 404, code, message, 1.5, body)


def test_event_frames_split_anywhere_are_read_whole_and_heartbeats_passed_over():
    reader = StreamReader(decode_ark_frame)
    events = []
    for piece in (": ping\n\ndata: {\"choices\": [{\"delta\": {\"content\": \"a\"}}]}\r", "\n\r\ndata: [LIVE_", "MODE]\n\ndata: [STREAM_END]\n\ndata: [DONE]\n\ndata: after\n\n"):
        events += reader.feed(piece)
    assert [e.content if isinstance(e, ArkChunkEvent) else e for e in events] == ["a", ArkLive(), ArkEnd()]
    assert reader.ended, "nothing after [DONE] is read"
    assert parse_frame("event: token\ndata: line one\ndata: line two") == parse_frame("event:token\ndata:line one\ndata:line two")


def test_the_response_resumer_stream_ends_at_done_or_cancelled():
    reader = StreamReader(decode_response_frame)
    assert reader.feed('event: token\ndata: {"text": "Hel"}\n\nevent: cancelled\ndata: {}\n\n') == [ResponseToken("Hel"), ResponseEnd("cancelled")]
    assert reader.ended


def test_a_missing_or_misspelt_field_is_caught_before_anything_is_sent():
    with pytest.raises(pydantic.ValidationError):
        GroupChatMessage.model_validate({"message_id": "m", "create_time": "t", "sender": "u", "contnet": "typo"})
    # memory-service fields take their Python names or their wire names, and go out as the wire's.
    by_name = CreateMessageRequest(user_id="u", content=[]).model_dump(by_alias=True, exclude_unset=True)
    assert by_name == CreateMessageRequest.model_validate({"userId": "u", "content": []}).model_dump(by_alias=True, exclude_unset=True) == {"userId": "u", "content": []}


def test_metadata_without_a_group_is_the_default_config():
    meta = {"scene": "group_chat", "scene_desc": "d", "name": "Defaults", "description": "d", "created_at": "2025-01-15T09:00:00Z", "default_timezone": "UTC"}
    assert "group_id" not in EverMemOs.upsert_conversation_meta.build(None, meta).body
    assert EverMemOs.upsert_conversation_meta.build(None, {**meta, "group_id": None}).body["group_id"] is None
    assert EverMemOs.patch_conversation_meta.build(None, {"name": "Renamed"}).body == {"name": "Renamed"}
    assert EverMemOs.get_conversation_meta.build(None).query == {}
    assert EverMemOs.get_conversation_meta.build(None, "team").query == {"group_id": "team"}
