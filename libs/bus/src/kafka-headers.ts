/** Kafka's header values (buffers, or arrays of them) as the strings a BusRecord carries. */
export function decodeHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (v === undefined || v === null) continue;
    out[k] = Buffer.isBuffer(v) ? v.toString('utf8') : Array.isArray(v) ? String(v[0]) : String(v);
  }
  return out;
}
