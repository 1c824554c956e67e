import { operationalTable } from '../../participant/operational.js';

/** The embedded bus's journal: events in transit and how far each consumer has read. */
export const busJournalTables = [
  operationalTable(
    'bus_journal',
    "the embedded bus's copies in transit; the erasure's transport step removes the person's",
  ),
  operationalTable('bus_journal_positions', "the embedded bus's read positions"),
] as const;
