-- KAOS's event_type is a free string: its own agent writes task_delegation_received and
-- delegation_error beside the seven types its document lists, and a refused event fails the
-- agent's task. The column keeps whatever the agent wrote.
ALTER TABLE kaos_events DROP CONSTRAINT kaos_events_event_type_check;
