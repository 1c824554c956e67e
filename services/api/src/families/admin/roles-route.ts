import { hasRole } from '@memstream/auth';
import { principalOf } from '@memstream/http';
import { CallerRoles } from '@memstream/schemas';
import type { Halves } from '../../shared/halves.js';
import { adminDocs as docs } from './docs.js';

/**
 * `GET /v1/admin/roles`: which of the admin roles the caller holds, for a front end (the console)
 * to offer only what the server will allow. Any caller may ask; it tells nothing but their own
 * roles, so it is not an admin call and is not written to the audit log (a person's every sign-in
 * would otherwise leave a refused attempt there).
 */
export function registerRolesRoute({ reads }: Halves): void {
  reads?.get(
    '/v1/admin/roles',
    docs.route({
      summary: 'The admin roles the caller holds (any caller)',
      description:
        "memstream's addition: admin (which includes auditor), auditor, or none. The server still checks every call.",
      responses: { 200: CallerRoles },
    }),
    async (request) => {
      const principal = principalOf(request);
      return { roles: (['admin', 'auditor'] as const).filter((role) => hasRole(principal, role)) };
    },
  );
}
