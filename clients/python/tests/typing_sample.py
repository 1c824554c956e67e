"""Read by mypy in test_typing.py, never run: what a type checker sees of each client."""

from typing import AsyncIterator, Awaitable, Iterator, Optional, Union

from typing_extensions import assert_type

from memstream import AsyncMemstream, Memstream
from memstream.models import ark, evermemos, kaos, memory_service


def blocking(client: Memstream) -> None:
    assert_type(client.evermemos.write({}), Union[evermemos.EverMemOsAnswer[evermemos.WriteResult], evermemos.Accepted])
    assert_type(client.memory_service.user.create(), Union[memory_service.Conversation, memory_service.Accepted])
    assert_type(client.memory_service.conversations.delete("c"), Optional[memory_service.Accepted])
    assert_type(client.kaos.stats(), kaos.KaosStats)
    assert_type(client.kaos.delete_session("s"), Union[kaos.KaosDeleted, kaos.KaosAccepted])
    assert_type(client.memory_agent.context_text("c"), str)
    assert_type(client.ark.stream("s"), Iterator[Union[ark.ArkChunkEvent, ark.ArkLive, ark.ArkEnd]])


async def asynchronous(client: AsyncMemstream) -> None:
    assert_type(client.memory_service.agent.context("c"), Awaitable[memory_service.AgentContext])
    assert_type(await client.kaos.stats(), kaos.KaosStats)
    assert_type(client.memory_service.conversations.follow_response("c"), AsyncIterator[Union[memory_service.ResponseToken, memory_service.ResponseEnd]])
    assert_type(client.with_credentials(token="t"), AsyncMemstream)
