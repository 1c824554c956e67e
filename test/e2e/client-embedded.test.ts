import { test, type TestContext } from 'node:test';
import { embeddedMemstream } from '../helpers/embedded.js';
import { AUTH_ENV, callers } from './client/callers.js';
import { checkEveryFamily } from './client/every-family.js';

test('embedded mode: @memstream/client drives every API family against the real server', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await checkEveryFamily(t, callers({ baseUrl: base }), 'embedded');
});
