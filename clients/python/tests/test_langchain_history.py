"""The LangChain history through a real chat loop: ChatOpenAI on a loopback model server, each
turn read from and written to the conversation the memstream server keeps."""

import os

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_openai import ChatOpenAI

from memstream import Memstream
from memstream.langchain import MemstreamChatMessageHistory
from model_server import LoopbackModel
from support import label, server_url


@pytest.fixture
def model():
    server = LoopbackModel()
    yield server
    server.close()


def connect() -> Memstream:
    key = os.environ.get("MEMSTREAM_API_KEY")
    return Memstream(server_url(), **({"api_key": key} if key else {}))


@pytest.fixture
def client():
    with connect() as c:
        yield c


SYSTEM = SystemMessage("You remember what you are told.")


def chat_model(model: LoopbackModel) -> ChatOpenAI:
    return ChatOpenAI(base_url=model.base_url, api_key="loopback", model="loopback-model", max_retries=0, timeout=30)


def test_a_chat_loop_keeps_its_turns_in_memstream_and_shows_them_to_the_model(model, client):
    history = MemstreamChatMessageHistory(f"lc-{label()}", client)
    llm = chat_model(model)
    replies = []
    for question in ["My sister lives in Porto.", "Where does my sister live?"]:
        history.add_user_message(question)
        reply = llm.invoke([SYSTEM, *history.messages])
        history.add_message(reply)
        replies.append(reply.content)
    assert replies == ["I was shown 0 earlier turn(s); you asked: My sister lives in Porto.", "I was shown 2 earlier turn(s); you asked: Where does my sister live?"]
    # What the model saw the second time came back from the server, in order.
    assert [m["content"] for m in model.requests[1][1:3]] == ["My sister lives in Porto.", replies[0]]

    # Another process (a new client) reads the same conversation back.
    with connect() as other:
        assert [(type(m), m.content) for m in MemstreamChatMessageHistory(history.conversation_id, other).messages] == [
            (HumanMessage, "My sister lives in Porto."), (AIMessage, replies[0]),
            (HumanMessage, "Where does my sister live?"), (AIMessage, replies[1]),
        ]
    history.clear()
    assert history.messages == []
    history.clear()  # clearing what is already gone is not an error


async def test_the_async_chat_loop_reads_and_writes_the_same_history(model, client):
    history = MemstreamChatMessageHistory(f"lc-async-{label()}", client)
    llm = chat_model(model)
    for question in ["I like trains.", "What do I like?"]:
        await history.aadd_messages([HumanMessage(question)])
        reply = await llm.ainvoke([SYSTEM, *await history.aget_messages()])
        await history.aadd_messages([reply])
    assert reply.content == "I was shown 2 earlier turn(s); you asked: What do I like?"
    assert len(await history.aget_messages()) == 4
    await history.aclear()
    assert await history.aget_messages() == []


def test_every_kind_of_message_comes_back_whole(client):
    history = MemstreamChatMessageHistory(f"lc-kinds-{label()}", client)
    sent = [
        SystemMessage("be brief"),
        HumanMessage("add 1 and 2"),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "call_1"}]),
        ToolMessage("3", tool_call_id="call_1"),
        AIMessage("3", additional_kwargs={"note": "kept"}),
    ]
    history.add_messages(sent)
    assert history.messages == sent
    # Other memory-service readers see a text block with the role beside the LangChain message.
    stored = client.memory_service.conversations.list_messages(history.conversation_id).data
    assert [(b["type"], b["role"], b["text"]) for m in stored for b in m.content][:2] == [("text", "system", "be brief"), ("text", "human", "add 1 and 2")]
    history.clear()
