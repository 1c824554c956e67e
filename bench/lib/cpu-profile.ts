import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { section, table } from './table.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A span on the monotonic clock, in microseconds: what V8 stamps its samples with on Linux. */
export interface Window {
  readonly fromUs: number;
  readonly toUs: number;
}

/** The monotonic clock V8's profiler uses (CLOCK_MONOTONIC on Linux, shared by every process). */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export interface ProfileSummary {
  readonly file: string;
  /** The part of the process's life summarised, when not all of it. */
  readonly window?: Window;
  /** Sampled time, and the part of it the process was busy (not idle), in milliseconds. */
  readonly totalMs: number;
  readonly busyMs: number;
  /** Self time per function, highest first: `name (file:line)`. */
  readonly topFunctions: Array<{ name: string; selfMs: number; pctBusy: number }>;
  /** Self time per package or area (a node_modules package, a workspace lib, node internals, GC). */
  readonly byArea: Array<{ area: string; selfMs: number; pctBusy: number }>;
  /**
   * The same time with native and node-internal frames (socket writes, JSON.parse, Buffer copies)
   * charged to the nearest package frame that called them: which library the time is spent for.
   */
  readonly byCaller: Array<{ area: string; selfMs: number; pctBusy: number }>;
}

/** Summarises every .cpuprofile in a folder (a process writes one per thread, at exit), busiest first. */
export function summarizeProfiles(dir: string, top = 15, window?: Window): ProfileSummary[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return []; // no folder: the process never got to write a profile
  }
  return files.map((f) => summarizeProfile(join(dir, f), top, window)).sort((a, b) => b.busyMs - a.busyMs);
}

/**
 * Self time per function and per area. With a window, only samples taken inside it count, so
 * start-up (module loading, migrations) and shutdown do not blur the picture of the load.
 */
export function summarizeProfile(file: string, top = 15, window?: Window): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  const callerArea = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const url = byId.get(at)!.callFrame.url;
      if (url && !url.startsWith('node:')) return areaOf(byId.get(at)!.callFrame);
    }
    return areaOf(byId.get(id)!.callFrame);
  };
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample; it is spent in what samples[i] shows.
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });

  const perFunction = new Map<string, number>();
  const perArea = new Map<string, number>();
  const perCaller = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    totalUs += us;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const key = `${frame.functionName || '(anonymous)'}${frame.url ? ` (${shortUrl(frame.url)}:${frame.lineNumber + 1})` : ''}`;
    perFunction.set(key, (perFunction.get(key) ?? 0) + us);
    const area = areaOf(frame);
    perArea.set(area, (perArea.get(area) ?? 0) + us);
    const caller = callerArea(id);
    perCaller.set(caller, (perCaller.get(caller) ?? 0) + us);
  }
  const busyUs = totalUs - idleUs;
  const rank = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({
        name,
        selfMs: Math.round(us / 1000),
        pctBusy: busyUs > 0 ? Math.round((us / busyUs) * 1000) / 10 : 0,
      }));
  return {
    file,
    ...(window ? { window } : {}),
    totalMs: Math.round(totalUs / 1000),
    busyMs: Math.round(busyUs / 1000),
    topFunctions: rank(perFunction, top),
    byArea: rank(perArea, top).map(({ name, ...rest }) => ({ area: name, ...rest })),
    byCaller: rank(perCaller, top).map(({ name, ...rest }) => ({ area: name, ...rest })),
  };
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  const ws = /\/(libs|services|bench|scripts)\/.*$/.exec(path);
  return ws ? ws[0].slice(1) : path;
}

/** Which package or part of the runtime a frame belongs to: where to look to make it cheaper. */
function areaOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native/V8 builtins)';
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    return `node:${parts[0] === 'internal' && parts.length > 2 ? `internal/${parts[1]}` : parts[0]}`;
  }
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const ws = /\/(libs|services)\/([^/]+)\//.exec(path);
  return ws ? `${ws[1]}/${ws[2]}` : path;
}

/** The report sections of some summaries: by area, by calling package, and the top functions. */
export function profileSections(profiles: Readonly<Record<string, ProfileSummary | undefined>>): string[] {
  const out: string[] = [];
  for (const [name, p] of Object.entries(profiles)) {
    out.push(section(`CPU profile: ${name}`));
    if (!p) {
      out.push('(no profile written)');
      continue;
    }
    const span = p.window ? `, ${((p.window.toUs - p.window.fromUs) / 1e6).toFixed(1)} s window` : '';
    out.push(`${p.file}${span}: sampled ${p.totalMs} ms, busy (not idle) ${p.busyMs} ms`);
    out.push(
      table(
        ['area (self time)', 'ms', '% busy'],
        p.byArea.map((x) => [x.area, x.selfMs, x.pctBusy]),
      ),
    );
    out.push(
      table(
        ['package, native frames charged to their caller', 'ms', '% busy'],
        p.byCaller.map((x) => [x.area, x.selfMs, x.pctBusy]),
      ),
    );
    out.push(
      table(
        ['function (self time)', 'ms', '% busy'],
        p.topFunctions.map((x) => [x.name, x.selfMs, x.pctBusy]),
      ),
    );
  }
  return out;
}
