import { useEffect, useRef, useState } from 'preact/hooks';
import type { Session } from '../shell/session.js';
import { Empty, ErrorBox } from '../shell/ui.js';
import { numeric, Table } from '../shell/table.js';
import { figuresOf, withBusLag, type Figures } from './pipeline-figures.js';
import { DeadLetterRecords } from './dead-letter-records.js';

/** How often the page reads /metrics and the bus's lag while it is shown. */
const POLL_MS = 2000;

/**
 * The pipeline: each consumer group's lag from the bus's offsets (GET /v1/console/pipeline, so in
 * both modes), and from the process's /metrics each group's rate, dead letters by reason, model
 * calls and tokens. In the embedded mode /metrics holds every service; a distributed deployment
 * serves each consumer's series on its own port, which the console, reading the API's address,
 * does not see, so there those columns stay empty while the lag is still known.
 */
export function PipelinePage({ session }: { session: Session }) {
  const [figures, setFigures] = useState<Figures | undefined>();
  const [error, setError] = useState<unknown>();
  const [busLagMissing, setBusLagMissing] = useState(false);
  const last = useRef<Figures | undefined>(undefined);
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        // The bus's lag is read beside the metrics; when the bus does not answer (a broker down),
        // the page keeps the metrics' own figures and says so instead of showing nothing.
        const [samples, pipeline] = await Promise.all([
          session.client.platform.metrics({ signal: abort.signal }),
          session.client.console.pipeline({ signal: abort.signal }).catch((err: unknown) => {
            if (abort.signal.aborted) throw err;
            return undefined;
          }),
        ]);
        const figures = figuresOf(samples, Date.now(), last.current);
        last.current = pipeline ? withBusLag(figures, pipeline.data) : figures;
        setFigures(last.current);
        setBusLagMissing(pipeline === undefined);
        setError(undefined);
      } catch (err) {
        if (!abort.signal.aborted) setError(err);
      }
      if (!abort.signal.aborted) timer = setTimeout(read, POLL_MS);
    };
    void read();
    return () => {
      abort.abort();
      if (timer) clearTimeout(timer);
    };
  }, [session]);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Pipeline
      </h1>
      <p class="muted">
        Read every {POLL_MS / 1000} s. Lag is the records written that each consumer group has not committed yet, from
        the bus itself; the other figures are the server's metrics.
      </p>
      {error !== undefined && <ErrorBox error={error} />}
      {busLagMissing && (
        <p role="status" data-testid="bus-lag-missing">
          The bus did not answer: lag below is each consumer's own last reading in this process's metrics.
        </p>
      )}
      {figures && (
        <>
          <Table
            caption="Consumer groups"
            data-testid="consumer-groups"
            head={[
              'Group',
              'Topics',
              ...numeric('Lag', 'Largest partition lag', 'Records/s', 'Handled', 'Retried', 'Dead-lettered'),
            ]}
          >
            {figures.groups.map((g) => (
              <tr data-group={g.group}>
                <th scope="row">{g.group}</th>
                <td class="small">{g.topics.join(', ')}</td>
                <td class="num" data-testid="lag">
                  {g.lag}
                </td>
                <td class="num">{g.maxPartitionLag}</td>
                <td class="num">{g.perSecond === null ? '—' : g.perSecond.toFixed(1)}</td>
                <td class="num">{g.ok}</td>
                <td class="num">{g.retried}</td>
                <td class="num">{g.deadLettered}</td>
              </tr>
            ))}
          </Table>
          {figures.replicas.length > 0 && (
            <Table
              caption="Database replicas the reads go to, and how far each is behind the primary"
              data-testid="replicas"
              head={['Replica', 'State', ...numeric('Lag (bytes)', 'Lag (s)', 'Reads', 'Reads sent to the primary')]}
            >
              {figures.replicas.map((r) => (
                <tr data-replica={r.replica}>
                  <th scope="row">{r.replica}</th>
                  <td>{r.up ? 'streaming' : 'not answering'}</td>
                  <td class="num" data-testid="replica-lag">
                    {r.lagBytes ?? '—'}
                  </td>
                  <td class="num">{r.lagSeconds === null ? '—' : r.lagSeconds.toFixed(3)}</td>
                  <td class="num">{r.reads}</td>
                  <td class="num">{r.toPrimary}</td>
                </tr>
              ))}
            </Table>
          )}
          <h2>Dead letters</h2>
          {figures.deadLetters.length === 0 ? (
            <Empty>No record was dead-lettered since the process started.</Empty>
          ) : (
            <Table
              caption="Records sent to dead-letter topics, by reason"
              data-testid="dead-letters"
              head={['Topic', 'Group', 'Reason', ...numeric('Records')]}
            >
              {figures.deadLetters.map((d) => (
                <tr>
                  <th scope="row">{d.topic}</th>
                  <td>{d.group}</td>
                  <td>{d.reason}</td>
                  <td class="num">{d.count}</td>
                </tr>
              ))}
            </Table>
          )}
          <DeadLetterRecords session={session} />
          <h2>Model calls and tokens</h2>
          {figures.modelCalls.length === 0 ? (
            <Empty>No model was called: extraction and summaries run offline (no model configured).</Empty>
          ) : (
            <>
              <Table
                caption="Model calls"
                data-testid="model-calls"
                head={['Model', 'Operation', 'Outcome', ...numeric('Calls', 'Mean time')]}
              >
                {figures.modelCalls.map((c) => (
                  <tr>
                    <th scope="row">{c.model}</th>
                    <td>{c.operation}</td>
                    <td>{c.outcome}</td>
                    <td class="num">{c.calls}</td>
                    <td class="num">{(c.meanSeconds * 1000).toFixed(0)} ms</td>
                  </tr>
                ))}
              </Table>
              <Table
                caption="Tokens the model server reported"
                data-testid="tokens"
                head={['Model', 'Operation', ...numeric('Prompt', 'Completion')]}
              >
                {figures.tokens.map((t) => (
                  <tr>
                    <th scope="row">{t.model}</th>
                    <td>{t.operation}</td>
                    <td class="num">{t.prompt}</td>
                    <td class="num">{t.completion}</td>
                  </tr>
                ))}
              </Table>
            </>
          )}
          {figures.modelErrors.length > 0 && (
            <Table
              caption="Failed model calls"
              data-testid="model-errors"
              head={['Model', 'Operation', 'Reason', ...numeric('Calls')]}
            >
              {figures.modelErrors.map((e) => (
                <tr>
                  <th scope="row">{e.model}</th>
                  <td>{e.operation}</td>
                  <td>{e.reason}</td>
                  <td class="num">{e.count}</td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </section>
  );
}
