import { MemstreamError, type Membership } from '@memstream/client';
import type { Session } from '../shell/session.js';
import { linkProps, seg } from '../shell/router.js';
import { useLoad } from '../shell/use-load.js';
import { Empty, Show, When } from '../shell/ui.js';
import { Table } from '../shell/table.js';
import { focusQuery } from '../memories/episodes.js';

interface Fork {
  readonly forkId: string;
  readonly forkedFromConversationId: string | null;
  readonly forkedFromMessageId: string | null;
  readonly title: string | null;
  readonly createdAt: string;
  readonly isCurrentFork: boolean;
}

/** The conversation's fork tree (memory-service: one tree shares its members) and its members. */
export function ForksAndMembers({ session, id }: { session: Session; id: string }) {
  const forks = useLoad(
    (signal) => session.client.memoryService.user.forks(id, { signal }).then((p) => p.data as unknown as Fork[]),
    [session, id],
  );
  const members = useLoad(
    (signal) =>
      session.client.memoryService.user.memberships(id, { signal }).then(
        (p): Membership[] | 'not-manager' => p.data,
        (err: unknown) => {
          // Listing members is a manager's right: below it the API answers 403, which is no error here.
          if (err instanceof MemstreamError && err.status === 403) return 'not-manager' as const;
          throw err;
        },
      ),
    [session, id],
  );
  return (
    <div class="two-columns">
      <section aria-labelledby="forks-title">
        <h2 id="forks-title">Fork tree</h2>
        <Show loaded={forks.loaded}>
          {(all) => (all.length === 0 ? <Empty>No fork tree.</Empty> : <Tree all={all} parent={null} id={id} />)}
        </Show>
      </section>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <Show loaded={members.loaded}>
          {(list) =>
            list === 'not-manager' ? (
              <Empty>Only a manager or the owner sees who the members are.</Empty>
            ) : list.length === 0 ? (
              <Empty>No members: agents and the local user reach it without one.</Empty>
            ) : (
              <Table
                data-testid="members"
                caption="Members and their access levels"
                hideCaption
                head={['Person', 'Level', 'Since']}
              >
                {list.map((m) => (
                  <tr>
                    <th scope="row">{m.userId}</th>
                    <td>{m.accessLevel}</td>
                    <td>
                      <When iso={m.createdAt} />
                    </td>
                  </tr>
                ))}
              </Table>
            )
          }
        </Show>
      </section>
    </div>
  );
}

function Tree({ all, parent, id }: { all: readonly Fork[]; parent: string | null; id: string }) {
  const children = all.filter((f) => f.forkedFromConversationId === parent);
  if (children.length === 0) return null;
  return (
    <ul class="tree">
      {children.map((f) => (
        <li>
          <a {...linkProps(`/conversations/${seg(f.forkId)}`)} aria-current={f.forkId === id ? 'page' : undefined}>
            {f.title ?? f.forkId}
          </a>{' '}
          <span class="muted small">
            {f.forkedFromMessageId && f.forkedFromConversationId ? (
              <>
                forked at{' '}
                <a
                  {...linkProps(
                    `/conversations/${seg(f.forkedFromConversationId)}${focusQuery([f.forkedFromMessageId])}`,
                  )}
                >
                  message {f.forkedFromMessageId}
                </a>
                ,{' '}
              </>
            ) : f.forkedFromConversationId ? (
              'forked at the first message, '
            ) : (
              'root, '
            )}
            <When iso={f.createdAt} />
          </span>
          <Tree all={all} parent={f.forkId} id={id} />
        </li>
      ))}
    </ul>
  );
}
