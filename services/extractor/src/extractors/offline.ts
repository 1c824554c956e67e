import type { CanonicalMessage } from '@memstream/schemas';
import type { ExtractedMemory } from '@memstream/store';
import { formatSpan, validZone } from '../dates.js';
import { participantsOf, sceneOf, type Extractor } from './extractor.js';

// Words that carry no topic: a short English list is enough for ranking sentences.
const STOP_WORDS = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
  our ours out over own really same she should so some such than that the their theirs them then there these they this
  those through to too under until up very was we were what when where which while who whom why will with would you
  your yours yeah yes oh ok okay hey hi hello thanks thank wow lol gonna got get go going like know think just one so
  much well sure sounds great good nice cool awesome amazing love totally`.split(/\s+/),
);

const MAX_SENTENCES = 8;
const MAX_SENTENCE_CHARS = 300;
const PER_PARTICIPANT_SENTENCES = 3;

interface Sentence {
  readonly text: string;
  readonly speaker: string;
  readonly speakerId: string;
  readonly position: number;
  readonly words: string[];
}

/**
 * Extraction without a model, so the embedded default works offline. Deterministic: the same
 * episode gives the same memories. The narrative names who talked, when (absolute dates in the
 * group's zone) and where, then quotes the episode's most informative sentences in order; each
 * participant's memory quotes their own. "Informative" is rarity within the episode: a sentence
 * scores by the inverse frequency of its content words, so small talk ranks low and the one
 * sentence with the place, the name or the number ranks high.
 */
export const offlineExtractor: Extractor = {
  name: 'offline-extractive',
  async extract({ episode, messages, meta }) {
    const zone = validZone(meta?.default_timezone);
    const people = participantsOf(messages);
    const when = formatSpan(episode.start_time, episode.end_time, zone);
    const where = meta?.name ? ` in "${meta.name}"` : '';
    const sentences = sentencesOf(messages);
    const scored = rank(sentences);
    const names = listOf(people.map((p) => p.name));
    const topics = topWords(sentences, 3);
    const title = topics.length > 0 ? `${names}: ${topics.join(', ')}` : `${names} talked`;

    const picked = scored.slice(0, MAX_SENTENCES).sort((a, b) => a.position - b.position);
    const lead = `${capitalize(when)}, ${names} ${people.length > 1 ? 'talked' : 'wrote'}${where} (${messages.length} messages).`;
    const body = picked.map((s) => `${s.speaker}: ${s.text}`).join(' ');
    const memories: ExtractedMemory[] = [{ userId: null, title, content: body ? `${lead} ${body}` : lead }];

    if (sceneOf(meta) === 'group_chat' && people.length > 0) {
      for (const person of people) {
        const own = scored
          .filter((s) => s.speakerId === person.id)
          .slice(0, PER_PARTICIPANT_SENTENCES)
          .sort((a, b) => a.position - b.position);
        if (own.length === 0) continue;
        const others = people.filter((p) => p.id !== person.id).map((p) => p.name);
        const withWhom = others.length > 0 ? ` with ${listOf(others)}` : '';
        memories.push({
          userId: person.id,
          title: `${person.name}${withWhom}`,
          content: `${capitalize(when)}, ${person.name} said${withWhom}${where}: ${own.map((s) => s.text).join(' ')}`,
        });
      }
    }
    return memories;
  },
};

function sentencesOf(messages: readonly CanonicalMessage[]): Sentence[] {
  const out: Sentence[] = [];
  for (const m of messages) {
    const text = m.content.replace(/\s+/g, ' ').trim();
    for (const raw of text.split(/(?<=[.!?])\s+(?=[A-Z0-9"“'([])/)) {
      const sentence =
        raw.length > MAX_SENTENCE_CHARS ? `${raw.slice(0, MAX_SENTENCE_CHARS).replace(/\s+\S*$/, '')}…` : raw;
      if (sentence === '') continue;
      out.push({
        text: sentence,
        speaker: m.sender_name || m.sender_id,
        speakerId: m.sender_id,
        position: out.length,
        words: contentWords(sentence),
      });
    }
  }
  return out;
}

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).filter(
    (w) => w.length > 2 && !STOP_WORDS.has(w),
  );
}

/** Sentences best first: the sum of their distinct words' inverse sentence frequency, damped by length. */
function rank(sentences: readonly Sentence[]): Sentence[] {
  const df = new Map<string, number>();
  for (const s of sentences) for (const w of new Set(s.words)) df.set(w, (df.get(w) ?? 0) + 1);
  const n = sentences.length;
  const score = (s: Sentence) => {
    const distinct = [...new Set(s.words)];
    if (distinct.length === 0) return 0;
    const sum = distinct.reduce((acc, w) => acc + Math.log(1 + n / (df.get(w) ?? 1)), 0);
    return sum / Math.sqrt(distinct.length + 2);
  };
  return [...sentences]
    .map((s) => ({ s, v: score(s) }))
    .sort((a, b) => b.v - a.v || a.s.position - b.s.position)
    .map((x) => x.s);
}

/** The words said most often across the episode (in at least two sentences), for the title. */
function topWords(sentences: readonly Sentence[], k: number): string[] {
  const count = new Map<string, number>();
  for (const s of sentences) for (const w of new Set(s.words)) count.set(w, (count.get(w) ?? 0) + 1);
  return [...count]
    .filter(([, c]) => c >= 2)
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([w]) => w);
}

function listOf(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? 'Someone';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
