/**
 * Deterministic chat content for the summarizer benchmark: a user and an assistant talking about
 * plans, work and errands, 20–60 words a message, from a seed. No external data: the same seed
 * always gives the same conversation, so two runs count the same tokens.
 */

/** mulberry32: small, fast, and good enough to vary words; not for anything secret. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PEOPLE = ['Maria', 'Jonas', 'Priya', 'Tom', 'Aiko', 'Lena', 'Omar', 'Sofia', 'Dmitri', 'Grace'];
const PLACES = [
  'Lisbon',
  'the Berlin office',
  'Kyoto',
  'the warehouse',
  'Oslo',
  'the client site',
  'Toronto',
  'the lab',
];
const THINGS = [
  'the quarterly report',
  'the flight booking',
  'the database migration',
  'the birthday dinner',
  'the budget draft',
  'the onboarding checklist',
  'the apartment lease',
  'the conference talk',
  'the release notes',
  'the vendor contract',
  'the team offsite',
  'the insurance claim',
  'the grant application',
  'the kitchen renovation',
  'the hiring plan',
];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const VERBS = ['review', 'finish', 'send', 'move', 'confirm', 'cancel', 'split', 'schedule', 'rewrite', 'check'];
const FILLER = [
  'I think that is fine for now, but let us keep an eye on it.',
  'Honestly it has been a long week and I would rather not rush it.',
  'If anything changes I will tell you straight away.',
  'It is not urgent, though it would help to settle it soon.',
  'We talked about this briefly last time, so here is the short version.',
  'The numbers looked a bit off, maybe we should double-check them.',
  'That sounds reasonable; I just want to avoid surprises later.',
];

type Pick = <T>(items: readonly T[]) => T;

function userSentence(pick: Pick, rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 28);
  const templates = [
    () => `Can you ${pick(VERBS)} ${pick(THINGS)} before ${pick(MONTHS)} ${n}?`,
    () => `${pick(PEOPLE)} asked whether we could ${pick(VERBS)} ${pick(THINGS)} by Friday.`,
    () => `I am in ${pick(PLACES)} until the ${n}th, so ${pick(PEOPLE)} will handle ${pick(THINGS)}.`,
    () => `What did we decide about ${pick(THINGS)}? I remember ${pick(PEOPLE)} had concerns.`,
    () => `Please remind me to ${pick(VERBS)} ${pick(THINGS)}; the cost was about ${n * 40} euros.`,
  ];
  return pick(templates)();
}

function assistantSentence(pick: Pick, rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 28);
  const templates = [
    () => `Noted: ${pick(PEOPLE)} will ${pick(VERBS)} ${pick(THINGS)} by ${pick(MONTHS)} ${n}.`,
    () => `Last time you agreed to ${pick(VERBS)} ${pick(THINGS)} first, then meet in ${pick(PLACES)}.`,
    () => `I have added a reminder for ${pick(MONTHS)} ${n} at ${8 + (n % 10)}:30 to ${pick(VERBS)} ${pick(THINGS)}.`,
    () => `The open question is who pays the remaining ${n * 25} euros for ${pick(THINGS)}.`,
    () => `${pick(PEOPLE)} confirmed the plan; ${pick(PEOPLE)} still needs to ${pick(VERBS)} ${pick(THINGS)}.`,
  ];
  return pick(templates)();
}

/** Sentences until the message has between 20 and 60 words (the last sentence may cross the target a little, never 60). */
export function messageText(rnd: () => number, role: 'user' | 'assistant'): string {
  const pick: Pick = (items) => items[Math.floor(rnd() * items.length)]!;
  const target = 20 + Math.floor(rnd() * 41);
  const words = (s: string) => s.split(/\s+/).length;
  const out: string[] = [];
  let count = 0;
  while (count < target) {
    const sentence =
      rnd() < 0.2 ? pick(FILLER) : role === 'user' ? userSentence(pick, rnd) : assistantSentence(pick, rnd);
    if (count > 0 && count + words(sentence) > 60) break;
    out.push(sentence);
    count += words(sentence);
  }
  return out.join(' ');
}
