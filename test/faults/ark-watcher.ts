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
    // The session exists before the reader opens it: on a loaded machine the first writes answer
    // 202 (stored later), and a reader opened then would get a 404, or wait for the session
    // through the fault, and follow nothing. A 200 says the write is stored.
    await waitFor('the ARK session stored', async () => ((await this.post()) === 200 ? true : undefined), 120_000);
    this.reader = await openSse(`${this.readApi}/stream/${this.sessionId}?from-beginning=true`);
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

  private async post(): Promise<number> {
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
    return res.status;
  }
}
