import { createInterface } from 'node:readline/promises';
import { MemstreamClient } from '@memstream/client';
import { chat } from './chat.js';

// npm run example:chat -- [conversation id]; MEMSTREAM_URL, and MEMSTREAM_TOKEN or MEMSTREAM_API_KEY for a server with authentication.
const client = new MemstreamClient({
  baseUrl: process.env['MEMSTREAM_URL'] ?? 'http://127.0.0.1:8080',
  ...(process.env['MEMSTREAM_TOKEN'] ? { token: process.env['MEMSTREAM_TOKEN'] } : {}),
  ...(process.env['MEMSTREAM_API_KEY'] ? { apiKey: process.env['MEMSTREAM_API_KEY'] } : {}),
});
const conversationId = process.argv[2] ?? 'chat-loop-demo';
const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
console.log(`Chatting in ${conversationId}; an empty line does nothing, Ctrl-D ends.`);
for await (const turn of chat(client, conversationId, process.env['USER'] ?? 'me', lines))
  console.log(`memstream> ${turn.reply}`);
