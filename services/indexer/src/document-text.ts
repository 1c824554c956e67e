import type { EpisodicMemory } from '@memstream/schemas';

/** A memory is indexed by its title and its text. */
export function memoryText(m: EpisodicMemory): string {
  return m.title ? `${m.title}. ${m.content}` : m.content;
}
