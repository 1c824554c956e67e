import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for REDIS_URL, which names either one server (`redis://host:port/db`,
 * `rediss://` with TLS) or a Sentinel deployment: `redis+sentinel://[user:password@]s1:26379,s2:26379/<master name>[/db]`.
 * With Sentinel, ioredis asks the sentinels for the current master, connects there, and after a
 * failover (the sentinels promote a replica) reconnects to the new master by itself; the password
 * is the master's (the sentinels are asked without one). One URL keeps every process's single
 * REDIS_URL setting: nothing else to configure, and a deployment switches by changing the URL.
 */
export function connectRedis(url: string, options: RedisOptions): Redis {
  const sentinel = sentinelOptionsOf(url);
  return sentinel ? new Redis({ ...options, ...sentinel }) : new Redis(url, options);
}

/** The ioredis options of a `redis+sentinel://` URL; undefined for any other URL. */
export function sentinelOptionsOf(url: string): RedisOptions | undefined {
  if (!url.startsWith('redis+sentinel://')) return undefined;
  const match = /^redis\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/]+)\/([^/?#]+)(?:\/(\d+))?\/?$/.exec(url);
  if (!match) {
    throw new Error(
      'REDIS_URL: a Sentinel URL is redis+sentinel://[user:password@]host:port[,host:port...]/<master name>[/db]',
    );
  }
  const [, user, password, hosts, name, db] = match;
  return {
    name: decodeURIComponent(name!),
    sentinels: hosts!.split(',').map((hostPort) => {
      const at = hostPort.lastIndexOf(':');
      return at < 0
        ? { host: hostPort, port: 26379 }
        : { host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) };
    }),
    ...(user ? { username: decodeURIComponent(user) } : {}),
    ...(password ? { password: decodeURIComponent(password) } : {}),
    ...(db ? { db: Number(db) } : {}),
  };
}
