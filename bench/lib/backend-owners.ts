/**
 * Which process each PostgreSQL backend works for, so the server's CPU can be split by client
 * (the converter's appends, the indexer's vector inserts, the read API's searches, the bench's
 * own polling). A backend's `client_port` in pg_stat_activity is its client's local TCP port;
 * /proc/net/tcp names each socket's inode by local port and /proc/<pid>/fd links a process to
 * its sockets' inodes. Linux only, and only for processes this user may inspect.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type pg from 'pg';

/** Local port of every TCP socket on the machine, by inode. */
function portsByInode(): Map<string, number> {
  const out = new Map<string, number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 on this machine
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      out.set(f[9]!, Number.parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return out;
}

/** Local ports of `pid`'s TCP sockets. */
function portsOf(pid: number, ports: Map<string, number>): number[] {
  const out: number[] = [];
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out; // gone, or not ours to read
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      const port = m ? ports.get(m[1]!) : undefined;
      if (port !== undefined) out.push(port);
    } catch {
      // closed between the listing and the read
    }
  }
  return out;
}

/** Backend pid -> the label of the watched process whose connection it serves ('other' when none). */
export async function backendOwners(
  client: pg.Client,
  database: string,
  watched: ReadonlyMap<string, number>,
): Promise<Map<number, string>> {
  const { rows } = await client.query<{ pid: number; port: number | null }>(
    'SELECT pid, client_port AS port FROM pg_stat_activity WHERE datname = $1',
    [database],
  );
  const ports = portsByInode();
  const labelOfPort = new Map<number, string>();
  for (const [label, pid] of watched) for (const port of portsOf(pid, ports)) labelOfPort.set(port, label);
  return new Map(rows.map((r) => [r.pid, (r.port !== null && labelOfPort.get(r.port)) || 'other']));
}
