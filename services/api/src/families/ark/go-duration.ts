import { GO_DURATION_PATTERN } from '@memstream/schemas';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's duration syntax as ARK clients send it: `500ms`, `30s`, `1m30s`, `2h`. Undefined if malformed. */
export function parseGoDuration(text: string): number | undefined {
  if (!GO_DURATION_PATTERN.test(text)) return undefined;
  let ms = 0;
  for (const [, value, , unit] of text.matchAll(/(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)/g))
    ms += Number(value) * UNIT_MS[unit!]!;
  return ms;
}
