/**
 * The bench's own calls to a server: signing in, creating the leads through the API, and checking
 * that each target answers what it should before it is loaded. Not used for measuring (wrk is).
 */
import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export interface Answer {
  readonly status: number;
  readonly json: unknown;
  /** The body's length in bytes. */
  readonly bytes: number;
}

export function post(url: string, body: unknown, headers: Readonly<Record<string, string>> = {}, timeoutMs = 30_000): Promise<Answer> {
  const payload = JSON.stringify(body);
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json, bytes: Buffer.byteLength(text) });
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`POST ${url} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Closes the set-up connections (a server's keep-alive timeout would otherwise close them under a later call). */
export function closeConnections(): void {
  agent.destroy();
}

async function expectOk(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const answer = await post(url, body, token ? { authorization: `Bearer ${token}` } : {});
  if (answer.status !== 200) throw new Error(`POST ${url} ${JSON.stringify(body)}: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json as Record<string, unknown>;
}

export async function login(baseUrl: string, password: string): Promise<string> {
  const answer = await expectOk(`${baseUrl}/api/auth/login`, { username: 'admin', password });
  return answer.token as string;
}

/**
 * An agent token for `lead.*` whose rate limits the load does not reach: the highest a token may
 * have, 1,000,000 a minute, above what the 5 s rounds send. The limiter still counts every call
 * (its cost is part of what is measured), but no call is refused with 429. Only an admin may give
 * a token limits above the server's, which the bench's person is.
 */
export async function agentToken(baseUrl: string, personToken: string): Promise<string> {
  const limits = { requests_per_minute: 1_000_000, writes_per_minute: 1_000_000 };
  const answer = await expectOk(`${baseUrl}/api/auth/agent-token`, { scopes: ['lead.*'], label: 'bench agent', limits }, personToken);
  return answer.token as string;
}

export interface SeededLeads {
  readonly ids: readonly string[];
  /** How many are at stage `won` (every fourth). */
  readonly won: number;
}

/**
 * Creates `count` leads, `concurrency` calls at a time; every fourth is qualified and won, so that
 * `stage = won` selects a quarter. Revenue varies so that ordering by it has work to do.
 */
export async function createLeads(baseUrl: string, token: string, count: number, concurrency = 16): Promise<SeededLeads> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  let won = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const created = await expectOk(
        `${baseUrl}/api/lead/create`,
        {
          title: `Lead ${i}`,
          expected_revenue: ((i * 7919) % 100_000) * 100,
          probability: i % 101,
          close_date: `2027-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
          hot: i % 3 === 0,
          notes: `Call back about the renewal of contract ${i}`,
        },
        token,
      );
      const id = (created.value as { id: string }).id;
      ids[i] = id;
      if (i % 4 === 0) {
        await expectOk(`${baseUrl}/api/lead/qualify`, { id }, token);
        await expectOk(`${baseUrl}/api/lead/win`, { id }, token);
        won++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ids, won };
}

/**
 * `lead.create_many` of `count` leads, `calls` times one after another: the records per second of
 * each call, measured from the client (request to answer). Each call's leads are the bench's own
 * kind of lead (as `createLeads` makes them).
 */
export async function createManyLeads(baseUrl: string, token: string, count: number, calls: number): Promise<number[]> {
  const perSecond: number[] = [];
  for (let call = 0; call < calls; call++) {
    const records = Array.from({ length: count }, (_, i) => ({
      title: `Bulk lead ${call}-${i}`,
      expected_revenue: ((i * 7919) % 100_000) * 100,
      probability: i % 101,
      close_date: `2027-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      hot: i % 3 === 0,
      notes: `Call back about the renewal of contract ${i}`,
    }));
    const started = performance.now();
    const answer = await expectOk(`${baseUrl}/api/lead/create_many`, { records }, token);
    const ms = performance.now() - started;
    if ((answer.value as { count: number }).count !== count) throw new Error(`lead.create_many created ${(answer.value as { count: number }).count} of ${count}`);
    perSecond.push((count * 1000) / ms);
  }
  return perSecond;
}

/** `count` new leads (stage new) made with `lead.create_many` in calls of at most 1,000; their ids. */
export async function createNewLeads(baseUrl: string, token: string, count: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < count) {
    const size = Math.min(1000, count - ids.length);
    const records = Array.from({ length: size }, (_, i) => ({ title: `${label} ${ids.length + i}`, notes: `Call back about ${label} ${ids.length + i}` }));
    const answer = await expectOk(`${baseUrl}/api/lead/create_many`, { records }, token);
    ids.push(...(answer.value as { ids: string[] }).ids);
  }
  return ids;
}

/**
 * An order of `lines` items as `order.create` takes it (the demo's sales module): number `number`
 * (a string, so that a wrk body can hold `{{n}}` there), for the party `customer`. `withComputed`
 * also gives each line's amount and the total, as a model where they are plain fields takes them.
 */
export function orderBody(number: string | number, customer: string, lines: number, withComputed = false): Record<string, unknown> {
  const items = Array.from({ length: lines }, (_, i) => {
    const quantity = (i % 5) + 1;
    const unit_price = 500 + ((i * 7919) % 20_000);
    return { description: `Item ${i + 1} of the order`, quantity, unit_price, ...(withComputed ? { amount: quantity * unit_price } : {}) };
  });
  const total = items.reduce((sum, item) => sum + item.quantity * item.unit_price, 0);
  return { number: `BN-${number}`, customer, ordered_on: '2027-01-15', deliver_by: '2027-02-15', items, ...(withComputed ? { total } : {}) };
}

/** Creates one party to be the customer of orders; answers its id. */
export async function createCustomer(baseUrl: string, token: string): Promise<string> {
  const created = await expectOk(`${baseUrl}/api/party/create`, { name: 'Bench Customer', kind: 'company' }, token);
  return (created.value as { id: string }).id;
}

/** Creates `count` orders of `lines` lines each for `customer`, `concurrency` calls at a time; answers their ids. */
export async function createOrders(baseUrl: string, token: string, customer: string, count: number, lines: number, concurrency = 8): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const created = await expectOk(`${baseUrl}/api/order/create`, orderBody(String(1000 + i), customer, lines), token);
      ids[i] = (created.value as { id: string }).id;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}
