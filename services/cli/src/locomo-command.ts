import { readFile, writeFile } from 'node:fs/promises';
import { validateGroupChat } from './group-chat-file.js';
import { plural, type Io } from './import-command.js';
import { locomoToGroupChat } from './locomo.js';

/**
 * Converts a LoCoMo file and writes it as GroupChatFormat. The result is validated like an import
 * would validate it, so a file this writes is one `memstream import` takes. Exit 1 on any error.
 */
export async function runLocomoToGroupChat(options: { input: string; output: string }, io: Io): Promise<number> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(options.input, 'utf8'));
  } catch (err) {
    io.stderr.write(`${options.input}: ${(err as Error).message}\n`);
    return 1;
  }
  const { documents, errors } = locomoToGroupChat(json);
  const checked = errors.length === 0 ? validateGroupChat(documents) : { ok: false as const, errors };
  if (!checked.ok) {
    for (const error of checked.errors) io.stderr.write(`${error}\n`);
    io.stderr.write(`${options.input}: ${plural(checked.errors.length, 'error')}; nothing written\n`);
    return 1;
  }
  await writeFile(options.output, `${JSON.stringify(documents, null, 2)}\n`);
  const messages = documents.reduce((n, d) => n + d.conversation_list.length, 0);
  io.stdout.write(`${options.output}: ${plural(documents.length, 'conversation')}, ${plural(messages, 'message')}\n`);
  return 0;
}
