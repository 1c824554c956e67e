import { AppError } from '@memstream/errors';
import { describeJsonProblem, jsonProblem } from '@memstream/schemas';

/**
 * The 400 for the first problem in a JSON value a client sent (see jsonProblem in
 * @memstream/schemas), naming the field. `what` names the value itself ("the body"); `at`, when
 * given, begins the message ("line 3"). Every JSON value a request carries is checked here before
 * anything is written, so nothing is stored other than as it was sent.
 */
export function jsonValueError(
  value: unknown,
  { what = 'the body', at }: { what?: string; at?: string } = {},
): AppError | undefined {
  const problem = jsonProblem(value);
  if (!problem) return undefined;
  const { message, field } = describeJsonProblem(problem, { what });
  return new AppError(
    'INVALID_PARAMETER',
    `Data format error: ${at ? `${at}: ` : ''}${message}`,
    field === undefined ? {} : { details: { field } },
  );
}

/**
 * fastify's JSON parser refuses `__proto__` keys, and `constructor` keys holding a `prototype`,
 * because in JavaScript they change an object's prototype when copied by assignment (zod's
 * records, `Object.assign`, most clients' merges) instead of being kept as data. We keep the
 * refusal (storing them would hand every JavaScript reader an object that changes shape when
 * copied) but name the key, as a 400 in the family's shape instead of "not valid JSON".
 *
 * Called only after the parser refused the text: undefined when the reason was something else.
 */
export function prototypeKeyError(text: string): AppError | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text); // own properties only: JSON.parse never sets a prototype
  } catch {
    return undefined;
  }
  // The text is JSON, so the parser refused a prototype key: jsonValueError names it (or a
  // problem before it in the body, which it would refuse as well once parsed).
  return jsonValueError(value);
}
