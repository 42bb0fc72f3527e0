/**
 * The server commands' options (runtime/cli-options.ts), as pure functions: a flag wins over its
 * environment variable, which wins over the default; an empty variable counts as unset; a bad
 * value is one CliError naming the flag and the variable. The real binary's refusals are tested
 * through it in test/cli/serve.test.ts; these cover every option in-process, cheaply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../../runtime/cli-error.ts';
import {
  agentLimits,
  databaseOptions,
  databaseUrl,
  failStartup,
  observabilityOptions,
  parseDay,
  parseLineCount,
  parsePort,
  parseWhole,
  publicUrlOption,
  retentionPolicy,
  serviceIdentityOption,
  timeouts,
  trustProxyOption,
} from '../../runtime/cli-options.ts';
import { MigrationRefusedError } from '../../runtime/db/migrate.ts';
import { DAY_MS } from '../../runtime/retention/policy.ts';

const VARIABLES = [
  'RMS_DB',
  'RMS_DB_POOL_SIZE',
  'RMS_DB_STATEMENT_TIMEOUT_MS',
  'RMS_AGENT_REQUESTS_PER_MINUTE',
  'RMS_AGENT_WRITES_PER_MINUTE',
  'RMS_REQUEST_TIMEOUT_MS',
  'RMS_KEEP_ALIVE_TIMEOUT_MS',
  'RMS_SHUTDOWN_TIMEOUT_MS',
  'RMS_LOG_FORMAT',
  'RMS_REQUEST_LOG',
  'RMS_METRICS_PORT',
  'RMS_METRICS_HOST',
  'RMS_RETAIN_AUDIT_DAYS',
  'RMS_RETAIN_AUDIT_READS_DAYS',
  'RMS_RETAIN_HISTORY_DAYS',
  'RMS_RETAIN_AGENT_DAYS',
  'RMS_RETAIN_EVENTS_DAYS',
  'RMS_RETAIN_DEAD_EVENTS_DAYS',
  'RMS_SERVICE_NAME',
  'RMS_SERVICE_COLOUR',
  'RMS_LOCALE',
] as const;
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
for (const name of VARIABLES) delete process.env[name];
afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** Sets variables for one test (restored after it). */
function withEnv(values: Partial<Record<(typeof VARIABLES)[number], string>>): void {
  for (const name of VARIABLES) delete process.env[name];
  Object.assign(process.env, values);
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return (error as Error).message;
  }
  throw new Error('no refusal');
}

describe('database', () => {
  it('takes the flag, else RMS_DB (unless empty), else the default file', () => {
    withEnv({});
    expect(databaseUrl(undefined)).toBe('sqlite:./data/rms.sqlite');
    withEnv({ RMS_DB: '' });
    expect(databaseUrl(undefined)).toBe('sqlite:./data/rms.sqlite');
    withEnv({ RMS_DB: 'sqlite:from-env.sqlite' });
    expect(databaseUrl(undefined)).toBe('sqlite:from-env.sqlite');
    expect(databaseUrl('sqlite:flag.sqlite')).toBe('sqlite:flag.sqlite');
  });

  it('reads the pool size and statement timeout, refusing what is not a whole number in range', () => {
    withEnv({});
    expect(databaseOptions({})).toEqual({});
    withEnv({ RMS_DB_POOL_SIZE: '7', RMS_DB_STATEMENT_TIMEOUT_MS: '0' });
    expect(databaseOptions({})).toEqual({ poolSize: 7, statementTimeoutMs: 0 });
    expect(databaseOptions({ poolSize: '3', statementTimeout: '2500' })).toEqual({ poolSize: 3, statementTimeoutMs: 2500 });
    expect(refusal(() => databaseOptions({ poolSize: '0' }))).toBe('invalid --pool-size / RMS_DB_POOL_SIZE 0: use a whole number from 1 to 1000');
    expect(refusal(() => databaseOptions({ statementTimeout: '-1' }))).toBe(
      'invalid --statement-timeout / RMS_DB_STATEMENT_TIMEOUT_MS -1: use a whole number from 0 to 2147483647',
    );
  });
});

describe('limits and timeouts', () => {
  it('gives agents the defaults, the environment, or the flags', () => {
    withEnv({});
    expect(agentLimits({})).toEqual({ requestsPerMinute: 600, writesPerMinute: 120 });
    withEnv({ RMS_AGENT_REQUESTS_PER_MINUTE: '60', RMS_AGENT_WRITES_PER_MINUTE: '0' });
    expect(agentLimits({})).toEqual({ requestsPerMinute: 60, writesPerMinute: 0 });
    expect(agentLimits({ agentRequestsPerMinute: '5', agentWritesPerMinute: '2' })).toEqual({ requestsPerMinute: 5, writesPerMinute: 2 });
    expect(refusal(() => agentLimits({ agentWritesPerMinute: '1.5' }))).toBe(
      'invalid --agent-writes-per-minute / RMS_AGENT_WRITES_PER_MINUTE 1.5: use a whole number from 0 to 1000000',
    );
  });

  it('takes HTTP timeouts from the flags or the environment, and leaves the rest to the server', () => {
    withEnv({});
    expect(timeouts({})).toEqual({});
    withEnv({ RMS_KEEP_ALIVE_TIMEOUT_MS: '4000' });
    expect(timeouts({ requestTimeout: '30000' })).toEqual({ requestMs: 30000, keepAliveMs: 4000 });
    expect(refusal(() => timeouts({ keepAliveTimeout: 'soon' }))).toBe('invalid --keep-alive-timeout / RMS_KEEP_ALIVE_TIMEOUT_MS soon: use a whole number from 0 to 2147483647');
  });
});

describe('observability', () => {
  it('logs requests unless told not to, in the format asked, with metrics only on a port given', () => {
    withEnv({ RMS_LOG_FORMAT: 'json' });
    const json = observabilityOptions({});
    expect(json.logFormat).toBe('json');
    expect(typeof json.requestLog).toBe('function');
    expect(json.metrics).toBeUndefined();
    expect(json.shutdownGraceMs).toBe(10_000);
    expect(observabilityOptions({ logFormat: 'text', requestLog: false }).requestLog).toBeUndefined();
    withEnv({ RMS_REQUEST_LOG: 'off', RMS_METRICS_PORT: '9464', RMS_SHUTDOWN_TIMEOUT_MS: '250' });
    const quiet = observabilityOptions({ logFormat: 'text' });
    expect(quiet.requestLog).toBeUndefined();
    expect(quiet.metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(quiet.shutdownGraceMs).toBe(250);
    expect(observabilityOptions({ logFormat: 'text', metricsPort: '0', metricsHost: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 0 });
  });

  it.each([
    [{ logFormat: 'xml' }, {}, 'invalid --log-format / RMS_LOG_FORMAT xml: use json or text'],
    [{ logFormat: 'text' }, { RMS_REQUEST_LOG: 'yes' }, 'invalid RMS_REQUEST_LOG yes: use on or off'],
    [{ logFormat: 'text', metricsPort: '70000' }, {}, 'invalid port 70000: use a number from 0 to 65535'],
    [{ logFormat: 'text', shutdownTimeout: 'never' }, {}, 'invalid --shutdown-timeout / RMS_SHUTDOWN_TIMEOUT_MS never: use a whole number from 0 to 2147483647'],
  ] as const)('refuses %o with %o', (options, variables, message) => {
    withEnv(variables);
    expect(refusal(() => observabilityOptions(options))).toBe(message);
  });
});

describe('retention', () => {
  it('keeps the defaults, takes the environment, and the flags over it', () => {
    withEnv({});
    expect(retentionPolicy({})).toMatchObject({ auditMs: 400 * DAY_MS, auditReadsMs: 30 * DAY_MS, historyMs: 0, agentMs: 30 * DAY_MS, eventsMs: 7 * DAY_MS, deadEventsMs: 30 * DAY_MS });
    withEnv({ RMS_RETAIN_HISTORY_DAYS: '90', RMS_RETAIN_AGENT_DAYS: '0', RMS_RETAIN_EVENTS_DAYS: '2', RMS_RETAIN_DEAD_EVENTS_DAYS: '9' });
    expect(retentionPolicy({ retainAuditDays: '1', retainDeadEventsDays: '0' })).toMatchObject({ auditMs: DAY_MS, auditReadsMs: 30 * DAY_MS, historyMs: 90 * DAY_MS, agentMs: 0, eventsMs: 2 * DAY_MS, deadEventsMs: 0 });
    expect(refusal(() => retentionPolicy({ retainEventsDays: '-1' }))).toBe('invalid --retain-events-days / RMS_RETAIN_EVENTS_DAYS -1: use a whole number from 0 to 36500');
    expect(refusal(() => retentionPolicy({ retainAuditReadsDays: '36501' }))).toBe(
      'invalid --retain-audit-reads-days / RMS_RETAIN_AUDIT_READS_DAYS 36501: use a whole number from 0 to 36500',
    );
  });
});

describe('addresses and the service', () => {
  it.each([
    [undefined, {}],
    ['true', { trustProxy: true }],
    ['false', { trustProxy: false }],
    [' 2 ', { trustProxy: 2 }],
    ['loopback,10.0.0.0/8', { trustProxy: 'loopback,10.0.0.0/8' }],
  ])('trusts proxies as --trust-proxy %s says', async (value, expected) => {
    expect(await trustProxyOption(value)).toEqual(expected);
  });

  it('refuses a proxy setting Express cannot read, and a public URL that is not http(s)', async () => {
    const refused = await trustProxyOption('10.0.0.0/99').then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as Error).message).toMatch(/^invalid --trust-proxy \/ RMS_TRUST_PROXY 10\.0\.0\.0\/99: .* \(use the proxies' addresses and subnets such as loopback,10\.0\.0\.0\/8, a hop count, or true\)$/);
    expect(publicUrlOption(undefined)).toEqual({});
    expect(publicUrlOption('https://rms.example.com/some/path')).toEqual({ publicUrl: 'https://rms.example.com' });
    for (const bad of ['rms.example.com', 'ftp://rms.example.com']) {
      expect(refusal(() => publicUrlOption(bad))).toBe(`invalid --public-url / RMS_PUBLIC_URL ${bad}: write it like https://rms.example.com`);
    }
  });

  it("takes the service's name, colour and locale from the flags or the environment, refusing a bad one", () => {
    withEnv({ RMS_SERVICE_NAME: 'Acme Lettings', RMS_LOCALE: 'en-GB' });
    expect(serviceIdentityOption({ colour: '#f4c542' })).toEqual({ name: 'Acme Lettings', colour: '#f4c542', locale: 'en-GB' });
    expect(refusal(() => serviceIdentityOption({ colour: 'sky blue' }))).toBe('invalid --colour / RMS_SERVICE_COLOUR sky blue: write it as #rrggbb, like #1f2735');
  });
});

describe('values', () => {
  it.each([
    ['2024-02-29', '2024-02-29'],
    [' 2024-03-01 ', '2024-03-01'],
  ])('takes the day %s', (value, day) => {
    expect(parseDay(value, '--before')).toBe(day);
  });

  it.each(['2023-02-29', '2024-13-01', '2024-3-1', 'yesterday'])('refuses the day %s', (value) => {
    expect(refusal(() => parseDay(value, '--before'))).toBe(`invalid --before ${value}: use a real calendar date YYYY-MM-DD`);
  });

  it.each([
    ['10', { min: 10, max: 10 }],
    ['0', { min: 0, max: 0 }],
    ['1-10', { min: 1, max: 10 }],
    ['1000', { min: 1000, max: 1000 }],
  ])('takes --lines %s', (value, count) => {
    expect(parseLineCount(value)).toEqual(count);
  });

  it.each(['10-1', '1001', '-1', 'a few', '1-'])('refuses --lines %s', (value) => {
    expect(refusal(() => parseLineCount(value))).toBe(`invalid --lines ${value}: use a number of lines per record or a range such as 1-10, from 0 to 1000`);
  });

  it('takes whole numbers and ports in range only', () => {
    expect(parseWhole(' 42 ', '--x', 0, 100)).toBe(42);
    for (const bad of ['101', '1e2', '', '4.0']) expect(refusal(() => parseWhole(bad, '--x', 0, 100))).toBe(`invalid --x ${bad}: use a whole number from 0 to 100`);
    expect(parsePort('0')).toBe(0);
    expect(parsePort('65535')).toBe(65535);
    for (const bad of ['65536', '-1', 'http']) expect(refusal(() => parsePort(bad))).toBe(`invalid port ${bad}: use a number from 0 to 65535`);
  });

  it('turns a refused migration and a taken port into a CliError, and leaves any other error as it is', () => {
    const migration = new MigrationRefusedError(['party.vat is new and required']);
    expect(refusal(() => failStartup(migration))).toBe(migration.message);
    const taken = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:3000'), { code: 'EADDRINUSE' });
    expect(refusal(() => failStartup(taken))).toBe('cannot listen: listen EADDRINUSE: address already in use 127.0.0.1:3000');
    const bug = new TypeError('a bug');
    expect(() => failStartup(bug)).toThrow(bug);
  });
});
