export type Teardown = readonly [label: string, release: () => Promise<unknown>];

/**
 * What a benchmark acquired, released in reverse order when it ends, and on Ctrl-C (then it exits
 * 130). A step that fails is reported and the others still run: a failure hidden here would leave
 * a database, topics or a process behind for the next run to trip over.
 */
export class Teardowns {
  private readonly steps: Teardown[] = [];

  /** `last` runs after every step, e.g. to stop a monitor that watched the released processes. */
  constructor(private readonly last: () => void = () => undefined) {
    process.once('SIGINT', () => void this.run().then(() => process.exit(130)));
  }

  push(step: Teardown): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    for (const [label, release] of this.steps.splice(0).reverse()) {
      await release().catch((err: unknown) => console.error(`[bench] teardown of ${label} failed: ${String(err)}`));
    }
    this.last();
  }
}
