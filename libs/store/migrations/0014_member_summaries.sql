-- An agent's summary (the memory-service's summary channel) is for the conversation's members, as
-- the real service has it: its people search them ("so that they can be searched by users").
-- Summaries were stored as agent-only (visibility agent, audience 'agents'); they become visible
-- to members. Their listing stays per channel: a person's message list is the history channel.
UPDATE messages SET metadata = jsonb_set(metadata, '{ms,visibility}', '"user"')
 WHERE metadata->'ms'->>'channel' = 'summary' AND metadata->'ms'->>'visibility' = 'agent';

UPDATE search_items s SET audience = NULL
  FROM messages m
 WHERE s.kind = 'message' AND s.item_id = m.id::text AND s.audience IS NOT NULL
   AND m.metadata->'ms'->>'channel' = 'summary';
