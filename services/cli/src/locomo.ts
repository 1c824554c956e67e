/**
 * LoCoMo (Maharana et al., 2024) to GroupChatFormat. A LoCoMo sample is one long conversation
 * between two speakers in numbered sessions; a session has one date-time and no per-turn times, so
 * every turn of a session carries its session's time: that is the original timestamp.
 */

export interface GroupChatDocument {
  version: string;
  conversation_meta: {
    version: string;
    scene: string;
    scene_desc: string;
    name: string;
    description: string;
    group_id: string;
    created_at: string;
    default_timezone: string;
    user_details: Record<string, { full_name: string; role: string }>;
    tags: string[];
  };
  conversation_list: Array<{
    message_id: string;
    create_time: string;
    sender: string;
    sender_name: string;
    content: string;
  }>;
}

export interface Converted {
  readonly documents: GroupChatDocument[];
  /** Everything that could not be converted, each with the sample and session it was found in. */
  readonly errors: string[];
}

interface Session {
  readonly n: number;
  readonly time: Date;
  readonly turns: readonly unknown[];
}

export function locomoToGroupChat(json: unknown): Converted {
  const samples = Array.isArray(json) ? json : [json];
  const documents: GroupChatDocument[] = [];
  const errors: string[] = [];
  samples.forEach((sample, i) => {
    const doc = convertSample(sample, `sample ${i}`, errors);
    if (doc) documents.push(doc);
  });
  return { documents, errors };
}

function convertSample(sample: unknown, where: string, errors: string[]): GroupChatDocument | undefined {
  if (!isObject(sample) || typeof sample['sample_id'] !== 'string' || !isObject(sample['conversation'])) {
    errors.push(`${where}: expected an object with sample_id and conversation`);
    return undefined;
  }
  const sampleId = sample['sample_id'];
  const at = `${where} (${sampleId})`;
  const conversation = sample['conversation'];
  const sessions = sessionsOf(conversation, at, errors);
  const first = sessions[0];
  if (!first) {
    errors.push(`${at}: no session with turns`);
    return undefined;
  }

  const users = new Map<string, string>();
  for (const key of ['speaker_a', 'speaker_b']) {
    const name = conversation[key];
    if (typeof name === 'string' && name.trim() !== '') users.set(speakerId(name), name);
  }
  const messages: GroupChatDocument['conversation_list'] = [];
  for (const session of sessions) {
    session.turns.forEach((turn, t) => {
      const message = convertTurn(turn, session.time);
      if (typeof message === 'string') errors.push(`${at}, session_${session.n}[${t}]: ${message}`);
      else {
        users.set(message.sender, message.sender_name);
        messages.push(message);
      }
    });
  }

  const names = [...users.values()];
  return {
    version: '1.0.0',
    conversation_meta: {
      version: '1.0.0',
      scene: 'group_chat',
      scene_desc: `LoCoMo long-term conversation between ${names.join(' and ')}, in ${sessions.length} sessions`,
      name: `LoCoMo ${sampleId}`,
      description: `LoCoMo sample ${sampleId}: ${messages.length} turns over ${sessions.length} sessions; each turn carries its session's time`,
      group_id: `locomo-${sampleId}`,
      created_at: isoSeconds(first.time),
      default_timezone: 'UTC',
      user_details: Object.fromEntries([...users].map(([id, name]) => [id, { full_name: name, role: 'user' }])),
      tags: ['locomo'],
    },
    conversation_list: messages,
  };
}

/** Sessions in number order. A date-time without its session list (LoCoMo has some) is skipped. */
function sessionsOf(conversation: Record<string, unknown>, at: string, errors: string[]): Session[] {
  const sessions: Session[] = [];
  for (const key of Object.keys(conversation)) {
    const match = /^session_(\d+)$/.exec(key);
    const turns = conversation[key];
    if (!match || !Array.isArray(turns) || turns.length === 0) continue;
    const raw = conversation[`${key}_date_time`];
    const time = typeof raw === 'string' ? parseLocomoDateTime(raw) : undefined;
    if (!time) {
      errors.push(`${at}: ${key}_date_time ${JSON.stringify(raw)} is not a date-time like "1:56 pm on 8 May, 2023"`);
      continue;
    }
    sessions.push({ n: Number(match[1]), time, turns });
  }
  return sessions.sort((a, b) => a.n - b.n);
}

function convertTurn(turn: unknown, time: Date): GroupChatDocument['conversation_list'][number] | string {
  if (!isObject(turn)) return 'a turn must be an object';
  const { speaker, dia_id: diaId, text } = turn;
  if (typeof speaker !== 'string' || speaker.trim() === '') return 'missing speaker';
  if (typeof diaId !== 'string' || diaId === '') return 'missing dia_id';
  if (typeof text !== 'string') return `${diaId}: missing text`;
  return {
    message_id: diaId,
    create_time: isoSeconds(time),
    sender: speakerId(speaker),
    sender_name: speaker,
    content: text + imageNote(turn),
  };
}

/** Shared images are part of what was said; their caption is the only text LoCoMo keeps of them. */
function imageNote(turn: Record<string, unknown>): string {
  const caption = turn['blip_caption'] ?? turn['query'];
  if (typeof caption === 'string' && caption.trim() !== '') return ` [image: ${caption.trim()}]`;
  const urls = turn['img_url'];
  const url = Array.isArray(urls) ? urls[0] : urls;
  return typeof url === 'string' ? ` [image: ${url}]` : '';
}

/** LoCoMo times have minutes at most; no milliseconds keeps the converted file readable. */
function isoSeconds(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
}

export function speakerId(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '_');
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** "1:56 pm on 8 May, 2023" as UTC; LoCoMo gives no zone, and the converted metadata says UTC. */
export function parseLocomoDateTime(value: string): Date | undefined {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})\s*$/i.exec(value);
  if (!m) return undefined;
  const [, h, min, ampm, d, monthName, y] = m as unknown as [string, string, string, string, string, string, string];
  const name = monthName.toLowerCase();
  const month = MONTHS.findIndex((full) => full === name || full.slice(0, 3) === name);
  const hour12 = Number(h);
  if (month < 0 || hour12 < 1 || hour12 > 12 || Number(min) > 59) return undefined;
  const hour = (hour12 % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
  const date = new Date(Date.UTC(Number(y), month, Number(d), hour, Number(min)));
  // Date.UTC rolls 31 April over into May; a date that moved was not a real date.
  return date.getUTCDate() === Number(d) && date.getUTCMonth() === month ? date : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
