import { openSse, type SseReader } from '../../harness/sse-client.js';
import { waitFor } from '../helpers/infra.js';

/**
 * An ARK session written to steadily through the gateway while a reader follows it live over
 * Server-Sent Events on the read API: after the fault, the reader must have every stored message of the session, in
 * order, each once, whatever the live channel (Redis) lost meanwhile.
 */
export class ArkWatcher {
  private reader: SseReader | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private n = 0;

  constructor(
    private readonly gateway: string,
    private readonly readApi: string,
    readonly sessionId: string,
  ) {}

  async start(): Promise<void> {
    await this.post();
    // The session exists once the converter stored that write, which a loaded machine delays: a
    // reader opened before then is refused (no such session) and would see nothing at all.
    this.reader = await waitFor(
      'the ARK session to exist',
      async () => {
        const reader = await openSse(`${this.readApi}/stream/${this.sessionId}?from-beginning=true`);
        if (reader.status === 200) return reader;
        reader.close();
        return undefined;
      },
      60_000,
    );
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await this.post().catch(() => undefined); // refused while the broker or the gateway is down: not stored, not expected
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** The contents the reader received as messages, in order. */
  received(): string[] {
    return (this.reader?.frames ?? [])
      .filter((f) => f.event === 'message' && typeof f.data === 'object' && f.data !== null)
      .map((f) => String((f.data as { choices: Array<{ delta: { content: unknown } }> }).choices[0]!.delta.content));
  }

  close(): void {
    this.reader?.close();
  }

  private async post(): Promise<void> {
    const n = this.n++;
    const res = await fetch(`${this.gateway}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        session_id: this.sessionId,
        query_id: `q${n}`,
        messages: [{ role: 'user', content: `ark ${n}` }],
      }),
      signal: AbortSignal.timeout(20_000),
    });
    await res.arrayBuffer();
  }
}
