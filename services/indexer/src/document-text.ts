import type { EpisodicMemory } from '@memstream/schemas';
import { memorySearchText } from '@memstream/store';

/** A memory is indexed by its title and its text (one rule in the store: an import writes the same rows). */
export function memoryText(m: EpisodicMemory): string {
  return memorySearchText(m);
}
