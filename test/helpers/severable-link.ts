import { createServer, connect, type Server, type Socket } from 'node:net';
import type { TestContext } from 'node:test';

/**
 * A TCP link to a real server that a test can cut off the way a lost machine or a network
 * partition does: from `sever()` on, nothing more passes either way and no connection is closed,
 * so no reset ever reaches the client. (A server that is killed on loopback always resets.)
 */
export class SeverableLink {
  private severed = false;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port and relays each connection to `target` (host:port). */
  static async open(t: TestContext, target: { host: string; port: number }): Promise<SeverableLink> {
    let link: SeverableLink | undefined;
    const server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        link!.sockets.add(from);
        from.on('error', () => to.destroy());
        from.on('close', () => to.destroy());
        from.on('data', (chunk) => {
          if (!link!.severed) to.write(chunk);
        });
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    link = new SeverableLink(server, address.port);
    t.after(() => link!.close());
    return link;
  }

  sever(): void {
    this.severed = true;
  }

  private async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
