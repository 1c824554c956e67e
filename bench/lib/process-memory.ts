import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessMemory {
  /** Resident set summed over the tree, in MiB. Counts shared pages once per process. */
  readonly rssMiB: number;
  /**
   * Proportional set summed over the tree, in MiB: each shared page divided among the processes
   * mapping it. This is what the tree costs the machine; RSS overstates it when a parent and its
   * children share libraries (node's own binary is mapped by every node child).
   */
  readonly pssMiB: number;
  /** Each process of the tree, the root first. */
  readonly processes: ReadonlyArray<{ readonly pid: number; readonly command: string; readonly rssMiB: number; readonly pssMiB: number }>;
}

/**
 * The memory of a process and all its descendants, from /proc (Linux only): what `npm start`
 * really costs, esbuild services, postgres children and all, not just the node process. A process
 * that exits while being read is left out. Undefined when the root itself is gone.
 */
export function processTreeMemory(rootPid: number): ProcessMemory | undefined {
  const processes = [rootPid, ...descendantsOf(rootPid)].flatMap((pid) => {
    const rollup = readProc(`/proc/${pid}/smaps_rollup`);
    const command = readProc(`/proc/${pid}/comm`)?.trim();
    if (rollup === undefined || command === undefined) return [];
    return [{ pid, command, rssMiB: mib(kibField(rollup, 'Rss')), pssMiB: mib(kibField(rollup, 'Pss')) }];
  });
  if (processes[0]?.pid !== rootPid) return undefined;
  const sum = (key: 'rssMiB' | 'pssMiB') => Math.round(processes.reduce((n, p) => n + p[key], 0) * 10) / 10;
  return { rssMiB: sum('rssMiB'), pssMiB: sum('pssMiB'), processes };
}

/** Every process whose chain of parents reaches `rootPid`, found from each process's stat line. */
function descendantsOf(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    // The command name may hold spaces and parentheses; the fields after its last ')' are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const queue = [rootPid];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process exited between listing and reading: it no longer costs anything
  }
}

function kibField(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

function mib(kib: number): number {
  return Math.round((kib / 1024) * 10) / 10;
}
