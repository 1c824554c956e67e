import type { Scenario } from './memory-service-rest-conversations.js';
import { messages as featureOf } from './memory-service-rest-messages.js';
import type { World } from './memory-service-rest-world.js';

const summaries = featureOf('Summaries REST API', async (w) => {
  w.asUser('alice');
  await w.haveConversation('Test Conversation');
  await w.hasMessage('Order status question');
});

const summarize = (w: World, title: string, summary: string, untilMessageId: string) =>
  w.call('POST', `${w.conv()}/summaries`, { title, summary, untilMessageId, summarizedAt: '2024-01-01T00:00:00Z' });

/** "I search messages": at once, as the suite does (search sees an acknowledged write). */
const search = (w: World, body: Record<string, unknown>) => w.call('POST', '/v1/user/search/messages', body);

export const SUMMARIES: readonly Scenario[] = [
  summaries('Agent can create a summary and user can search it', async (w) => {
    w.asAgent('test-agent-key');
    await w.call('GET', `${w.conv()}/messages`);
    const first = w.set('firstMessageId', 'data[0].id');
    await summarize(w, 'Order summary', 'Customer asked about refund policy.', first);
    w.status(201);
    w.fieldIs('channel', 'summary');
    w.fieldIs('content[0].text', 'Customer asked about refund policy.');
    w.bodyIs((b) => ({
      id: b.id,
      conversationId: w.conversationId,
      channel: 'summary',
      content: [
        {
          type: 'summary',
          text: 'Customer asked about refund policy.',
          untilMessageId: first,
          summarizedAt: '2024-01-01T00:00:00Z',
        },
      ],
      createdAt: b.createdAt,
    }));
    w.asUser('alice');
    await search(w, { query: 'refund policy' });
    w.status(200);
    w.count(1);
    w.fieldIs('data[0].message.content[0].text', 'Customer asked about refund policy.');
    w.bodyIs((b) => ({
      data: [
        {
          message: {
            id: b.data[0]?.message?.id,
            conversationId: b.data[0]?.message?.conversationId,
            channel: b.data[0]?.message?.channel,
            content: b.data[0]?.message?.content,
            createdAt: b.data[0]?.message?.createdAt,
          },
          score: b.data[0]?.score,
        },
      ],
    }));
  }),
  summaries('Summary creation requires agent API key', async (w) => {
    w.asUser('alice');
    await w.call('GET', `${w.conv()}/messages`);
    await summarize(w, 'Blocked summary', 'Should not be created.', w.set('firstMessageId', 'data[0].id'));
    w.status(403);
    w.errorCode('forbidden');
    w.bodyIs((b) => ({ code: 'forbidden', error: b.error, details: { message: b.details?.message } }));
  }),
  summaries('Search messages with query', async (w) => {
    w.asAgent('test-agent-key');
    await w.hasMessage('Customer wants to return item');
    await w.call('GET', `${w.conv()}/messages`);
    await summarize(
      w,
      'Return request',
      'Customer wants to return an item and get a refund.',
      w.set('firstMessageId', 'data[0].id'),
    );
    w.asUser('alice');
    await search(w, { query: 'return item', topK: 10 });
    w.status(200);
    w.atLeast(1);
  }),
];

const multiAgent = featureOf('Multi-agent memory scoping via REST', async (w) => {
  w.asUser('alice');
  await w.haveConversation('Multi-agent memory');
  await w.hasMessage('User visible history');
});

const appendMemory = (w: World, t: string) =>
  w.call('POST', `${w.conv()}/messages`, { content: [{ type: 'text', text: t }], channel: 'MEMORY' });

export const MULTI_AGENT: readonly Scenario[] = [
  multiAgent('Agents see only their own memory messages', async (w) => {
    w.asAgent('test-agent-key');
    await appendMemory(w, 'Agent A memory');
    w.status(201);
    w.asAgent('test-agent-key-b');
    await appendMemory(w, 'Agent B memory');
    w.status(201);
    for (const [key, own] of [
      ['test-agent-key', 'Agent A memory'],
      ['test-agent-key-b', 'Agent B memory'],
    ] as const) {
      w.asAgent(key);
      await w.call('GET', `${w.conv()}/messages`, undefined, { channel: 'MEMORY' });
      w.status(200);
      w.count(1);
      w.textAt(0, own);
    }
  }),
];
