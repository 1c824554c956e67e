import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface MemoryPeak {
  /** Highest VmRSS seen by the poller, in MiB. */
  readonly peakRssMiB: number;
  /** The kernel's own high-water mark (VmHWM) at the last poll, in MiB: catches spikes between polls. */
  readonly hwmMiB: number;
}

/** CPU seconds (user + system) of every process on the machine, and the machine's busy and total time. */
export interface CpuSnapshot {
  readonly at: number;
  /** pid -> [group, CPU seconds]; the group is a watched label, an infrastructure name, or `other`. */
  readonly perPid: ReadonlyMap<number, readonly [string, number]>;
  readonly machineBusy: number;
  readonly machineTotal: number;
}

/** Processes of the shared infrastructure, by the command name the kernel reports. */
const INFRA_COMMANDS: Readonly<Record<string, string>> = {
  java: 'kafka',
  postgres: 'postgres',
  'redis-server': 'redis',
};

const CLOCK_TICKS = clockTicks();

/**
 * Watches processes through /proc (Linux only): peak resident memory of the watched ones every
 * `intervalMs`, and CPU time of every process on demand, so each phase can say how many of the
 * machine's cores went where. On a 2-core machine with Kafka, Postgres and Redis beside the
 * services, that split is half the story.
 */
export class ProcMonitor {
  private readonly pids = new Map<string, number>();
  private readonly peaks = new Map<string, { rss: number; hwm: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs = 500) {
    this.timer = setInterval(() => this.poll(), intervalMs);
    this.timer.unref();
  }

  watch(label: string, pid: number): void {
    this.pids.set(label, pid);
    this.poll();
  }

  /** Reads each process once more (a last look before it exits) and returns the peaks so far. */
  peaksMiB(): Record<string, MemoryPeak> {
    this.poll();
    const out: Record<string, MemoryPeak> = {};
    for (const [label, p] of this.peaks) out[label] = { peakRssMiB: toMiB(p.rss), hwmMiB: toMiB(p.hwm) };
    return out;
  }

  /** Every process's CPU time now. Between two of these, `cpuBetween` tells where the cores went. */
  cpu(): CpuSnapshot {
    const labelOf = new Map([...this.pids].map(([label, pid]) => [pid, label]));
    const perPid = new Map<number, readonly [string, number]>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      const stat = readProc(`/proc/${pid}/stat`);
      if (!stat) continue;
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      perPid.set(pid, [labelOf.get(pid) ?? INFRA_COMMANDS[comm] ?? 'other', cpuSecondsOf(stat)]);
    }
    return { at: performance.now(), perPid, ...machineCpu() };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private poll(): void {
    for (const [label, pid] of this.pids) {
      const status = readProc(`/proc/${pid}/status`);
      if (!status) continue; // exited: its peak stays as last seen
      const rss = kib(status, 'VmRSS');
      const hwm = kib(status, 'VmHWM');
      const prev = this.peaks.get(label) ?? { rss: 0, hwm: 0 };
      this.peaks.set(label, { rss: Math.max(prev.rss, rss), hwm: Math.max(prev.hwm, hwm) });
    }
  }
}

/**
 * Cores each group used between two snapshots (CPU seconds per wall second): the watched
 * processes, kafka, postgres and redis, `other` (whatever else ran: on a shared machine, someone
 * else's load, which the figures then carry) and `machine`, everything together. A process that
 * started in between counts from zero; one that ended in between falls into `other`.
 */
export function cpuBetween(from: CpuSnapshot, to: CpuSnapshot): Record<string, number> {
  const wallSeconds = (to.at - from.at) / 1000;
  if (wallSeconds <= 0) return {};
  const seconds = new Map<string, number>();
  for (const [pid, [group, end]] of to.perPid) {
    const start = from.perPid.get(pid);
    const used = start && start[0] === group ? end - start[1] : end;
    seconds.set(group, (seconds.get(group) ?? 0) + used);
  }
  const machine = to.machineBusy - from.machineBusy;
  const named = [...seconds].filter(([g]) => g !== 'other').reduce((n, [, s]) => n + s, 0);
  seconds.set('other', Math.max(0, machine - named));
  seconds.set('machine', machine);
  return Object.fromEntries([...seconds].map(([g, s]) => [g, Math.round((s / wallSeconds) * 100) / 100]));
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process is gone; callers treat that as "no reading"
  }
}

function kib(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return m ? Number(m[1]) : 0;
}

function toMiB(kibValue: number): number {
  return Math.round((kibValue / 1024) * 10) / 10;
}

function cpuSecondsOf(stat: string): number {
  // The command name may hold spaces and parentheses; the fields after its last ')' are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / CLOCK_TICKS;
}

function machineCpu(): { machineBusy: number; machineTotal: number } {
  const line = (readProc('/proc/stat') ?? '').split('\n')[0] ?? '';
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { machineBusy: (total - idle) / CLOCK_TICKS, machineTotal: total / CLOCK_TICKS };
}

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100; // the Linux default on every common architecture
  }
}

/**
 * What the machine is busy with before a benchmark starts: on a shared machine, not nothing.
 * Samples 2 s at a time until someone else's load is under 0.3 cores or `waitQuietMs` is up.
 */
export async function backgroundLoad(
  monitor: ProcMonitor,
  waitQuietMs: number,
  progress: (line: string) => void,
): Promise<Record<string, number>> {
  const deadline = Date.now() + waitQuietMs;
  for (;;) {
    const from = monitor.cpu();
    await new Promise((r) => setTimeout(r, 2_000));
    const cores = cpuBetween(from, monitor.cpu());
    const others = (cores['machine'] ?? 0) - (cores['bench'] ?? 0);
    if (others < 0.3 || Date.now() >= deadline) return cores;
    progress(`waiting for a quieter machine: ${others.toFixed(2)} cores busy elsewhere`);
  }
}
