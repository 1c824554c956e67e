import type { Session } from '../shell/session.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show } from '../shell/ui.js';
import { Table } from '../shell/table.js';

/** Records shown per dead-letter topic, the newest. */
const PER_TOPIC = 20;

/**
 * The dead-lettered records themselves, newest first per topic, with the reason the bus wrote on
 * each: for admins and auditors only, since a record is a message as it was sent, content and
 * all. The server refuses everyone else, and the page does not ask on their behalf. Read when
 * the page opens and on request, not polled: on Kafka each look reads the topics' tails.
 */
export function DeadLetterRecords({ session }: { session: Session }) {
  if (session.roles.length === 0)
    return (
      <p class="muted" data-testid="dead-letter-records-withheld">
        The records themselves, with their content, are shown to admins and auditors only.
      </p>
    );
  return <Records session={session} />;
}

function Records({ session }: { session: Session }) {
  const { loaded, reload } = useLoad(
    (signal) => session.client.admin.deadLetters({ limit: PER_TOPIC }, { signal }),
    [session],
  );
  return (
    <section class="dead-letter-records" aria-labelledby="dead-letter-records" data-testid="dead-letter-records">
      <h3 id="dead-letter-records">Dead-lettered records</h3>
      <p class="muted">
        The latest {PER_TOPIC} of each dead-letter topic, newest first. Reading them is written to the audit log.{' '}
        <button type="button" onClick={reload}>
          Read again
        </button>
      </p>
      <Show loaded={loaded}>
        {(list) => {
          const topics = list.data.filter((t) => t.records.length > 0);
          if (topics.length === 0) return <Empty>Every dead-letter topic is empty.</Empty>;
          return topics.map((t) => (
            <Table
              data-dlq-topic={t.topic}
              caption={`${t.topic}: ${t.records.length} of the ${t.retained} records it holds`}
              head={['Record', 'Reason', 'From', { num: 'Attempts' }, 'Content']}
            >
              {t.records.map((r) => (
                <tr data-testid="dead-letter" data-offset={`${r.partition}:${r.offset}`}>
                  <th scope="row" class="small">
                    partition {r.partition}, offset {r.offset}
                    {r.key && <div class="muted">key {r.key}</div>}
                  </th>
                  <td>
                    {r.code && <span class="badge failed">{r.code}</span>}{' '}
                    <span data-testid="dead-letter-reason">{r.reason ?? '—'}</span>
                  </td>
                  <td class="small">
                    {r.sourceTopic ?? '—'}
                    {r.sourceOffset !== null && ` @ ${r.sourcePartition ?? '?'}:${r.sourceOffset}`}
                    {r.consumerGroup && <div class="muted">group {r.consumerGroup}</div>}
                  </td>
                  <td class="num">{r.attempts ?? '—'}</td>
                  <td>
                    <details>
                      <summary>
                        {r.valueBytes} bytes{r.value.length >= list.valueLimit ? ' (cut)' : ''}
                      </summary>
                      <pre class="content small">{r.value}</pre>
                    </details>
                  </td>
                </tr>
              ))}
            </Table>
          ));
        }}
      </Show>
    </section>
  );
}
