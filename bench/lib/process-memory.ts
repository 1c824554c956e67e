import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory of a process tree, in KiB, summed over the root and every descendant. */
export interface TreeMemory {
  /** Resident set: pages shared between the processes (libraries, forked pages) count in each. */
  readonly rssKiB: number;
  /** Proportional set: a page shared by n processes counts 1/n in each, so the sum is what the tree costs. */
  readonly pssKiB: number;
  /** How many processes were read. */
  readonly processes: number;
}

/**
 * The memory of `rootPid` and all its descendants now, from /proc/<pid>/smaps_rollup (Linux 4.14
 * or later). The embedded mode may start helpers of its own (a database server, workers), and a
 * figure for the leader alone would leave them out; RSS alone would count their shared pages twice.
 */
export function treeMemory(rootPid: number): TreeMemory {
  let rssKiB = 0;
  let pssKiB = 0;
  let processes = 0;
  for (const pid of [rootPid, ...descendantsOf(rootPid)]) {
    const rollup = readProc(`/proc/${pid}/smaps_rollup`);
    if (rollup === undefined) continue; // exited between the listing and the read
    rssKiB += field(rollup, 'Rss');
    pssKiB += field(rollup, 'Pss');
    processes++;
  }
  return { rssKiB, pssKiB, processes };
}

/** Every process whose chain of parents leads to `rootPid`, from the parent field of /proc/<pid>/stat. */
export function descendantsOf(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    // The command name may hold spaces and parentheses; the fields after its last ')' are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const siblings = children.get(ppid) ?? [];
    siblings.push(Number(entry));
    children.set(ppid, siblings);
  }
  const found: number[] = [];
  const queue = [...(children.get(rootPid) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * Samples a process tree every `intervalMs` and keeps the highest sums seen. RSS and PSS peak
 * separately (each at its own sample), and a spike shorter than the interval is missed: the
 * figures are a floor of the true peak.
 */
export class TreeMemoryPeak {
  private peakRss = 0;
  private peakPss = 0;
  private mostProcesses = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly rootPid: number,
    intervalMs = 250,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    this.sample();
  }

  /** Takes one last sample and stops; returns the peaks (and the most processes seen at once). */
  stop(): TreeMemory {
    this.sample();
    clearInterval(this.timer);
    return { rssKiB: this.peakRss, pssKiB: this.peakPss, processes: this.mostProcesses };
  }

  private sample(): void {
    const now = treeMemory(this.rootPid);
    this.peakRss = Math.max(this.peakRss, now.rssKiB);
    this.peakPss = Math.max(this.peakPss, now.pssKiB);
    this.mostProcesses = Math.max(this.mostProcesses, now.processes);
  }
}

export function mib(kib: number): number {
  return Math.round((kib / 1024) * 10) / 10;
}

function field(rollup: string, name: string): number {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup);
  return m ? Number(m[1]) : 0;
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process is gone, or not ours to read: no reading
  }
}
