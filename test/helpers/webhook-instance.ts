/**
 * One instance of the server, as a process of its own, for the tests of several instances
 * delivering webhooks (test/multi-instance/webhooks.test.ts): the fixture modules on the database
 * `RMS_TEST_INSTANCE_DB`, private receivers allowed, a short backoff (so that retries are made
 * within the test's bounds) and the server's claim lease unless `RMS_TEST_INSTANCE_LEASE_MS` says
 * otherwise (a killed instance's claims are taken over when its worker lock goes, not its lease). Prints
 * `listening on <url>` like `rmsgen serve`. Run with `node --import tsx`.
 */
import { registry } from '../fixtures/generated/registry.ts';
import { startServer } from '../../runtime/server.ts';

const dbUrl = process.env.RMS_TEST_INSTANCE_DB;
if (!dbUrl) throw new Error('RMS_TEST_INSTANCE_DB is not set');
const server = await startServer({
  registry,
  dbUrl,
  host: '127.0.0.1',
  port: 0,
  adminPassword: process.env.RMS_TEST_INSTANCE_PASSWORD ?? 'instance-password',
  log: (line) => console.log(line),
  webhooks: { allowPrivate: true, worker: { ...(process.env.RMS_TEST_INSTANCE_LEASE_MS ? { leaseMs: Number(process.env.RMS_TEST_INSTANCE_LEASE_MS) } : {}), firstBackoffMs: 100, idleMs: 50 } },
});
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
