/** The value of a JSON text, or undefined when it is not JSON (a fan-out message may be anything). */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
