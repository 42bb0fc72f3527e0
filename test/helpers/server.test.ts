/**
 * test/helpers/server.ts's client: a request written on a kept-alive connection just as the
 * in-process server closes it for being idle is sent again on another connection, and reaches the
 * server once. Before, a test that held the process past the keep-alive timeout (a synchronous
 * `tsc`, CPU-heavy checks on a busy machine) failed its next request with ECONNRESET.
 */
import { Agent as HttpAgent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendOn, startTestServer, type TestServer } from './server.ts';

/**
 * The server's keep-alive timeout. Node's client keeps a connection only when the server's
 * `Keep-Alive: timeout=N` leaves it more than a second, and the race shows once the process is
 * held about a second past the timeout.
 */
const KEEP_ALIVE_MS = 2_000;
const HOLD_MS = KEEP_ALIVE_MS + 1_200;
let t: TestServer;
let token: string;

beforeAll(async () => {
  t = await startTestServer({ timeouts: { keepAliveMs: KEEP_ALIVE_MS } });
  token = await t.login();
});

afterAll(async () => {
  await t?.close();
});

/** Holds this thread, its timers and sockets included, for `ms`, without spinning a core. */
function holdProcess(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('the test client', () => {
  it('sends a request again when the server closed its kept-alive connection as it was written; it is carried out once', async () => {
    expect((await t.command(token, 'party.list', {})).status).toBe(200);
    holdProcess(HOLD_MS);
    const created = await t.command(token, 'party.create', { name: 'After a hold' });
    expect(created.status).toBe(200);
    const listed = await t.command(token, 'party.list', {});
    expect(listed.body.value.map((row: { name: string }) => row.name)).toEqual(['After a hold']);
  });

  it('fails a request whose fresh connection fails', async () => {
    const closed = await startTestServer();
    const { url } = closed;
    await closed.close();
    await expect(sendOn(new HttpAgent({ keepAlive: true }), `${url}/api/party/list`, 'POST', {}, '{}')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
