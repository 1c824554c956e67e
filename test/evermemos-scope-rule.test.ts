import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { everMemOsScope, everMemOsScopeRule, MAGIC_ALL } from '@memstream/schemas';

/** What a client may send for each of group_id and user_id: absent, null, "", "__all__", a name. */
const VALUES = [undefined, null, '', MAGIC_ALL, 'ana'] as const;

function pairs(): { group: (typeof VALUES)[number]; user: (typeof VALUES)[number]; sent: Record<string, unknown> }[] {
  return VALUES.flatMap((group) =>
    VALUES.map((user) => ({
      group,
      user,
      sent: { ...(group === undefined ? {} : { group_id: group }), ...(user === undefined ? {} : { user_id: user }) },
    })),
  );
}

for (const where of ['body', 'query'] as const) {
  for (const nameOne of [false, true]) {
    test(`the documented scope rule (${where}${nameOne ? ', a group or a user named' : ''}) takes exactly the pairs the server takes`, () => {
      const valid = new Ajv2020({ strict: false }).compile(everMemOsScopeRule(where, nameOne));
      for (const { group, user, sent } of pairs()) {
        // a query string cannot carry null: the parameter is left out
        const arrived = (v: (typeof VALUES)[number]) => (where === 'query' && v === null ? undefined : v);
        const taken = !('refusal' in everMemOsScope(arrived(group), arrived(user), nameOne));
        assert.equal(valid(sent), taken, `${JSON.stringify(sent)}: the server ${taken ? 'takes' : 'refuses'} it`);
      }
    });
  }
}
