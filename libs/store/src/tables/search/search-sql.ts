import type { SearchKind } from './search-rows.js';

/**
 * What other folders' statements ask of the search index, as SQL to put inside them. A search
 * row's key is (group_key, kind, item_id), the group its shard column: each fragment takes all
 * three, so a row is found on its group's shard.
 */

/** An inner join to the search row of the item `item` of `kind` in `group`. */
export const joinSearchRow = (alias: string, kind: SearchKind, group: string, item: string) =>
  `JOIN search_items ${alias} ON ${alias}.group_key = ${group} AND ${alias}.kind = '${kind}' AND ${alias}.item_id = ${item}`;

/** True when the item `item` of `kind` in `group` has a search row. */
export const hasSearchRow = (kind: SearchKind, group: string, item: string) =>
  `EXISTS (SELECT 1 FROM search_items s WHERE s.group_key = ${group} AND s.kind = '${kind}' AND s.item_id = ${item})`;

/**
 * How many search rows the conversation has, and how many of its messages and of everything have
 * a vector of model `model`, as three int8 columns `search_items`, `indexed_messages` and
 * `current_vectors` for a select list. `shown` is a condition on `audience` preceded by AND, or
 * nothing: both tables hold each row's audience.
 */
export const searchCounts = (conversation: string, model: string, shown: string) =>
  `(SELECT count(*) FROM search_vectors WHERE conversation_id = ${conversation} AND kind = 'message' ${shown})::int8 AS indexed_messages,
       (SELECT count(*) FROM search_vectors WHERE conversation_id = ${conversation} AND embedding_model = ${model} ${shown})::int8 AS current_vectors,
       (SELECT count(*) FROM search_items WHERE conversation_id = ${conversation} ${shown})::int8 AS search_items`;

/**
 * A CTE queueing the search rows the CTE `written` returned for the indexer's sweep
 * (search_unembedded, unembeddedItems): rows no event will bring a vector for, as an import's.
 */
export const queueUnembeddedSql = (written: string) =>
  `unembedded AS (INSERT INTO search_unembedded (group_key, kind, item_id) SELECT group_key, kind, item_id FROM ${written})`;
