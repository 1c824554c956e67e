/**
 * Just enough of nginx's configuration language to tell where the edge sends a request: directives,
 * blocks, `upstream`, `map $request_method`, and `location` with exact (`=`) and prefix matches.
 * Anything else that could change routing (regex locations, rewrites) is refused, so this reading
 * cannot silently disagree with nginx's.
 */

interface Directive {
  readonly name: string;
  readonly args: readonly string[];
  readonly block?: readonly Directive[];
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const re = /#[^\n]*|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([{};])|([^\s{};#"']+)/g;
  for (const m of text.matchAll(re)) {
    if (m[0].startsWith('#')) continue;
    tokens.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
  }
  return tokens;
}

function parseBlock(tokens: string[], at: { i: number }, nested: boolean): Directive[] {
  const out: Directive[] = [];
  let words: string[] = [];
  while (at.i < tokens.length) {
    const token = tokens[at.i++]!;
    if (token === ';') {
      if (words.length > 0) out.push({ name: words[0]!, args: words.slice(1) });
      words = [];
    } else if (token === '{') {
      out.push({ name: words[0] ?? '', args: words.slice(1), block: parseBlock(tokens, at, true) });
      words = [];
    } else if (token === '}') {
      if (!nested) throw new Error('unbalanced } in nginx configuration');
      return out;
    } else {
      words.push(token);
    }
  }
  if (nested || words.length > 0) throw new Error('unterminated nginx configuration');
  return out;
}

export type EdgeTarget = { readonly upstream: string } | { readonly status: number };

export interface EdgeConfig {
  /** upstream name -> its `server` addresses (host:port) */
  readonly upstreams: ReadonlyMap<string, readonly string[]>;
  readonly listen: readonly string[];
  /** Where a request goes: an upstream's name, or a status the edge answers itself (404 when no location matches). */
  route(method: string, path: string): EdgeTarget;
  /**
   * The body the edge answers a request it refuses itself with (its `map $request`), for a request
   * line of this method and path; undefined when the configuration has no such map.
   */
  refusal(method: string, path: string): string | undefined;
}

interface Location {
  readonly exact: boolean;
  readonly path: string;
  readonly body: readonly Directive[];
}

export function parseEdgeConfig(text: string): EdgeConfig {
  const top = parseBlock(tokenize(text), { i: 0 }, false);
  const upstreams = new Map<string, string[]>();
  const methodMaps = new Map<string, { values: Map<string, string>; fallback: string | undefined }>();
  // `map $request`: the bodies of the edge's own refusals, by request line (never a route).
  let refusals: { patterns: Array<[RegExp, string]>; fallback: string | undefined } | undefined;
  const servers: Directive[] = [];
  for (const d of top) {
    if (d.name === 'upstream') {
      upstreams.set(
        d.args[0]!,
        (d.block ?? []).filter((s) => s.name === 'server').map((s) => s.args[0]!),
      );
    } else if (d.name === 'map' && d.args[0] === '$request') {
      refusals = { patterns: [], fallback: undefined };
      for (const entry of d.block ?? []) {
        if (entry.name === 'default') refusals.fallback = entry.args[0];
        else if (entry.name.startsWith('~')) refusals.patterns.push([new RegExp(entry.name.slice(1)), entry.args[0]!]);
        else throw new Error(`map $request entry ${entry.name} is not understood here (regular expressions only)`);
      }
    } else if (d.name === 'map') {
      if (d.args[0] !== '$request_method') throw new Error(`map on ${d.args[0]} is not understood here`);
      const values = new Map<string, string>();
      let fallback: string | undefined;
      for (const entry of d.block ?? []) {
        if (entry.name === 'default') fallback = entry.args[0];
        else values.set(entry.name, entry.args[0]!);
      }
      methodMaps.set(d.args[1]!, { values, fallback });
    } else if (d.name === 'server') {
      servers.push(d);
    }
  }
  if (servers.length !== 1) throw new Error(`expected one server block, found ${servers.length}`);
  const server = servers[0]!.block ?? [];
  const locations: Location[] = server
    .filter((d) => d.name === 'location')
    .map((d) => {
      if (d.args.length === 2 && d.args[0] === '=') return { exact: true, path: d.args[1]!, body: d.block ?? [] };
      if (d.args.length === 1 && !d.args[0]!.startsWith('~') && !d.args[0]!.startsWith('@')) {
        return { exact: false, path: d.args[0]!, body: d.block ?? [] };
      }
      throw new Error(`location ${d.args.join(' ')} is not understood here (exact and prefix only)`);
    });
  for (const loc of locations) {
    const unsupported = loc.body.find((d) => ['rewrite', 'location', 'if', 'try_files'].includes(d.name));
    if (unsupported) throw new Error(`${unsupported.name} inside location ${loc.path} is not understood here`);
  }

  const target = (loc: Location, method: string): EdgeTarget => {
    const returned = loc.body.find((d) => d.name === 'return');
    if (returned) return { status: Number(returned.args[0]) };
    const pass = loc.body.find((d) => d.name === 'proxy_pass')?.args[0];
    if (pass === undefined) throw new Error(`location ${loc.path} neither returns nor proxies`);
    const host = pass.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
    if (!host.startsWith('$')) return { upstream: host };
    const map = methodMaps.get(host);
    if (map === undefined) throw new Error(`proxy_pass uses ${host}, which no map defines`);
    const chosen = map.values.get(method) ?? map.fallback;
    if (chosen === undefined) throw new Error(`${host} has no value for ${method}`);
    return { upstream: chosen };
  };

  return {
    upstreams,
    listen: server.filter((d) => d.name === 'listen').map((d) => d.args[0]!),
    route(method, path) {
      const exact = locations.find((l) => l.exact && l.path === path);
      if (exact) return target(exact, method);
      // nginx takes the longest matching prefix (regex locations, which would come next, are refused above)
      const prefix = locations
        .filter((l) => !l.exact && path.startsWith(l.path))
        .sort((a, b) => b.path.length - a.path.length)[0];
      return prefix ? target(prefix, method) : { status: 404 };
    },
    refusal(method, path) {
      if (!refusals) return undefined;
      const line = `${method} ${path} HTTP/1.1`;
      return refusals.patterns.find(([pattern]) => pattern.test(line))?.[1] ?? refusals.fallback;
    },
  };
}
