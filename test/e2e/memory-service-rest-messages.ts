import type { Scenario } from './memory-service-rest-conversations.js';
import type { World } from './memory-service-rest-world.js';

const text = (t: string) => [{ type: 'text', text: t }];
const memory = (t: string) => ({ channel: 'MEMORY', content: text(t) });

const messages =
  (feature: string, background: (w: World) => Promise<void>) =>
  (name: string, run: (w: World) => Promise<void>): Scenario => ({
    feature,
    name,
    run: async (w) => {
      await background(w);
      await run(w);
    },
  });

const scenario = messages('Messages REST API', async (w) => {
  w.asUser('alice');
  await w.haveConversation('Test Conversation');
});

/** "I list messages for the conversation" with the suite's optional parameters. */
const list = (w: World, query: Record<string, string | number> = {}) =>
  w.call('GET', `${w.conv()}/messages`, undefined, query);

/** "I sync memory messages with request". */
const sync = (w: World, ...texts: string[]) =>
  w.call('POST', `${w.conv()}/memory/messages/sync`, { messages: texts.map(memory) });

export const MESSAGES: readonly Scenario[] = [
  scenario('List messages from a conversation', async (w) => {
    await list(w);
    w.status(200);
    w.count(0);
    w.bodyIs(() => ({ nextCursor: null, data: [] }));
  }),
  scenario('List messages with history messages', async (w) => {
    await w.hasMessage('Hello from Alice');
    await w.hasMessage('How are you?');
    await list(w);
    w.status(200);
    w.count(2);
    w.set('firstMessageId', 'data[0].id');
    w.textAt(0, 'Hello from Alice');
    w.textAt(1, 'How are you?');
    w.bodyIs((b) => ({
      nextCursor: null,
      data: [0, 1].map((i) => ({
        id: b.data[i].id,
        conversationId: b.data[i].conversationId,
        userId: 'alice',
        channel: 'history',
        content: b.data[i].content,
        createdAt: b.data[i].createdAt,
      })),
    }));
  }),
  scenario('List messages with pagination', async (w) => {
    for (let i = 1; i <= 5; i++) await w.hasMessage(`Message ${i}`);
    await list(w, { limit: 2 });
    w.status(200);
    w.count(2);
    w.present('nextCursor');
  }),
  scenario('Agent can append memory messages to conversation', async (w) => {
    w.asAgent('test-agent-key');
    await w.call('POST', `${w.conv()}/messages`, { content: text('Agent response'), channel: 'MEMORY' });
    w.status(201);
    w.fieldIs('content[0].text', 'Agent response');
    w.fieldIs('channel', 'memory');
    w.bodyIs((b) => ({
      id: b.id,
      conversationId: w.conversationId,
      channel: 'memory',
      content: text('Agent response'),
      createdAt: b.createdAt,
    }));
  }),
  scenario('User cannot append memeory messages to conversation', async (w) => {
    w.asUser('alice');
    await w.call('POST', `${w.conv()}/messages`, { content: text('User message'), channel: 'MEMORY' });
    w.status(403);
    w.errorCode('forbidden');
    w.bodyIs((b) => ({ code: 'forbidden', error: b.error, details: { message: b.details?.message } }));
  }),
  scenario('Agent can list all messages including memory channel', async (w) => {
    w.asAgent('test-agent-key');
    await w.hasMessage('User message');
    await w.hasAgentMessage('Agent message', 'MEMORY');
    await list(w);
    w.status(200);
    w.count(2);
  }),
  scenario('Agent can filter memory messages by epoch', async (w) => {
    w.asAgent('test-agent-key');
    await w.hasAgentMessage('First epoch message', 'MEMORY', 1);
    await w.hasAgentMessage('Second epoch message', 'MEMORY', 2);
    await list(w, { channel: 'MEMORY', epoch: '1' });
    w.status(200);
    w.count(1);
    w.textAt(0, 'First epoch message');
  }),
  scenario('Sync memory messages is no-op when there are no changes', async (w) => {
    w.asAgent('test-agent-key');
    await w.hasAgentMessage('Stable epoch message', 'MEMORY', 1);
    await sync(w, 'Stable epoch message');
    w.status(200);
    w.fieldIs('epoch', 1);
    w.fieldIs('noOp', true);
    w.fieldIs('epochIncremented', false);
    w.count(0, 'messages');
  }),
  scenario('Sync memory messages appends new entries within the current epoch', async (w) => {
    w.asAgent('test-agent-key');
    await w.hasAgentMessage('Epoch delta message', 'MEMORY', 1);
    await sync(w, 'Epoch delta message', 'Appended via sync');
    w.status(200);
    w.fieldIs('epoch', 1);
    w.fieldIs('noOp', false);
    w.fieldIs('epochIncremented', false);
    w.fieldIs('messages[0].content[0].text', 'Appended via sync');
    w.count(1, 'messages');
  }),
  scenario('Sync memory messages creates a new epoch when history diverges', async (w) => {
    w.asAgent('test-agent-key');
    await w.hasAgentMessage('Original epoch message', 'MEMORY', 1);
    await sync(w, 'New epoch message');
    w.status(200);
    w.fieldIs('epoch', 2);
    w.fieldIs('noOp', false);
    w.fieldIs('epochIncremented', true);
    w.count(1, 'messages');
  }),
  scenario('User can only see history channel messages', async (w) => {
    w.asUser('alice');
    await w.hasMessage('User message');
    // the suite writes it through its store with no client id; here the agent writes it
    w.apiKey = 'test-agent-key';
    await w.hasAgentMessage('Agent message', 'MEMORY');
    w.apiKey = null;
    await list(w);
    w.status(200);
    w.count(1);
    w.textAt(0, 'User message');
  }),
  scenario('List messages with channel filter for agent', async (w) => {
    w.asAgent('test-agent-key');
    await w.hasAgentMessage('Memory message', 'MEMORY');
    await w.hasAgentMessage('History message', 'HISTORY');
    await list(w, { channel: 'MEMORY' });
    w.status(200);
    w.count(1);
    w.textAt(0, 'Memory message');
  }),
  scenario('Derived conversation title from first message', async (w) => {
    const id = '00000000-0000-0000-0000-000000000099';
    await w.call('DELETE', w.conv(id));
    w.holdConversation(id, 'alice');
    await w.hasMessage('Sensitive information about the new compliance project');
    await w.call('GET', w.conv());
    w.fieldIs('title', 'Sensitive information about the new comp');
  }),
  scenario('List messages from non-existent conversation', async (w) => {
    w.asUser('alice');
    await w.call('GET', `${w.conv('non-existent-id')}/messages`);
    w.status(404);
    w.errorCode('not_found');
  }),
  scenario('List messages from conversation without access', async (w) => {
    w.asUser('bob');
    await w.conversationOwnedBy('alice');
    await list(w);
    w.status(403);
    w.errorCode('forbidden');
  }),
];

export { messages };
