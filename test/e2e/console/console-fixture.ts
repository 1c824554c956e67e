import type { TestContext } from 'node:test';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemstreamClient } from '@memstream/client';
import { userToken } from '../../../harness/credentials.js';
import { launchBrowser, type Browser } from '../../../harness/browser.js';

/**
 * The people and conversations the console's tests set up, each through the API as a client
 * writes them, and the browser they look with.
 */

/** A person signed in by name: the token the console's form takes, and a client holding it. */
export interface Person {
  readonly token: string;
  readonly client: MemstreamClient;
}

export async function people<Name extends string>(base: string, names: readonly Name[]): Promise<Record<Name, Person>> {
  const each = await Promise.all(
    names.map(async (name) => {
      const token = await userToken(name);
      return [name, { token, client: new MemstreamClient({ baseUrl: base, token }) }] as const;
    }),
  );
  return Object.fromEntries(each) as Record<Name, Person>;
}

/**
 * A group chat in which `sender` says each line, a minute apart from 09:00 on 8 May 2025; the
 * message ids are `<group>-1`, `<group>-2`, ... (counting on from `from` when a chat goes on).
 */
export async function writeChat(
  client: MemstreamClient,
  group: string,
  sender: string,
  lines: readonly string[],
  from = 0,
): Promise<void> {
  for (const [i, content] of lines.entries())
    await client.evermemos.write({
      group_id: group,
      message_id: `${group}-${from + i + 1}`,
      create_time: new Date(Date.UTC(2025, 4, 8, 9, from + i)).toISOString(),
      sender,
      content,
    });
}

/**
 * A person's conversations, one in each family that writes its own: an EverMemOS group chat of
 * `lines`, an ARK session `<person>-ark` with one message, and a KAOS session `<person>-kaos` with
 * no event yet (a conversation all the same). Returns the KAOS session as the server made it.
 */
export async function conversationsInEveryFamily(
  person: MemstreamClient,
  name: string,
  chat: string,
  lines: readonly string[],
) {
  await writeChat(person, chat, name, lines);
  await person.ark.postMessages({ session_id: `${name}-ark`, messages: [{ role: 'user', content: 'hello from ARK' }] });
  return person.kaos.createSession({ user_id: name, session_id: `${name}-kaos` });
}

/** A memory-service conversation `owner` makes and lets `reader` read; its id. */
export async function sharedConversation(owner: MemstreamClient, reader: string, title: string): Promise<string> {
  const made = await owner.memoryService.user.create({ title });
  await owner.memoryService.user.share(made.id, reader, 'reader');
  return made.id;
}

/**
 * Chromium for the test, closed when it ends, and the folder its screenshots go to: a temporary
 * one, or MEMSTREAM_CONSOLE_SHOTS (docs/console for the README's).
 */
export async function consoleBrowser(t: TestContext): Promise<{ browser: Browser; shots: string }> {
  const shots = process.env['MEMSTREAM_CONSOLE_SHOTS'] ?? (await mkdtemp(join(tmpdir(), 'console-shots-')));
  const browser = await launchBrowser();
  t.after(() => browser.close());
  return { browser, shots };
}
