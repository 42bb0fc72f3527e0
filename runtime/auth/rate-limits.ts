/**
 * Agents' rate limits (beyond SPEC 8, which leaves them open): each agent token may make so many
 * requests and so many writes (create, update, delete, actions, proposals) per minute. A runaway
 * agent must flood neither the service nor the audit trail.
 *
 * Counted in the database, so every instance draws on one budget: one row per token and
 * **fixed one-minute window** (aligned to the clock's minutes), incremented atomically. A burst
 * that straddles a window boundary can reach up to twice the limit within sixty seconds; in
 * exchange a call costs one increment, no history to scan. A refused call is counted too, so a
 * token that keeps calling stays refused until the window ends.
 *
 * Increments of calls that arrive together are grouped into one statement per token and one
 * transaction (a commit costs far more than a row); each call still waits for its own count, so
 * it is admitted or refused on stored numbers only.
 */
import type { Knex } from 'knex';
import { systemClock, type Clock } from '../clock.ts';
import type { CommandKind, RateLimitsInfo } from '../api-shapes.ts';
import { kindTraits } from '../command-kinds.ts';
import type { AgentCaller } from '../caller.ts';
import { runStatement } from '../db/statements.ts';
import { createTableIfMissing } from '../db/system-tables.ts';
import { ADMIN_ROLE } from '../rights.ts';

export const RATE_TABLE = 'rms_rate_windows';
export const WINDOW_MS = 60_000;

/** Requests and writes per minute; 0 means unlimited. */
export interface RateLimits {
  readonly requestsPerMinute: number;
  readonly writesPerMinute: number;
}

/** Defaults of `serve --agent-requests-per-minute` and `--agent-writes-per-minute`. */
export const DEFAULT_AGENT_LIMITS: RateLimits = { requestsPerMinute: 600, writesPerMinute: 120 };


/** What one call costs. */
export interface RateCost {
  readonly requests: number;
  readonly writes: number;
}

const ONE_READ: RateCost = { requests: 1, writes: 0 };
const ONE_WRITE: RateCost = { requests: 1, writes: 1 };

/**
 * What a call of a command of this kind costs (undefined: no command, such as a request that
 * names none): a request, and a write when the command changes records (proposing one, or trying
 * it in a dry run, counts too).
 */
export function callCost(kind: CommandKind | undefined): RateCost {
  return kind !== undefined && kindTraits(kind).access === 'write' ? ONE_WRITE : ONE_READ;
}

export type Admission =
  | { readonly limited: false }
  | {
      readonly limited: true;
      readonly allowed: boolean;
      /** The limit that applies to this call and what is left of it (writes when a write was refused, else requests). */
      readonly limit: number;
      readonly remaining: number;
      /** Seconds until the window ends. */
      readonly resetSeconds: number;
      /** True for the first refused call of the token in this window (on any instance): the one that is audited. */
      readonly firstRefusal: boolean;
    };

export async function ensureRateTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, RATE_TABLE, (table) => {
    table.string('agent_token_id', 64).notNullable();
    /** Start of the window, in minutes since the epoch. */
    table.bigInteger('window_start').notNullable();
    table.integer('requests').notNullable();
    table.integer('writes').notNullable();
    /** Whether a refusal in this window was audited (once per window and token). */
    table.boolean('refusal_audited').notNullable().defaultTo(false);
    table.primary(['agent_token_id', 'window_start']);
  });
}

/**
 * The limits that apply to an agent token: its own where set, else the server's. A token made by a
 * person who is not an admin never goes past the server's limits, even if the server's limits were
 * lowered after it was made.
 */
export function effectiveLimits(own: OwnLimits, creatorIsAdmin: boolean, server: RateLimits): RateLimits {
  const pick = (mine: number | null, serverLimit: number): number => {
    if (mine === null) return serverLimit;
    if (creatorIsAdmin || serverLimit === 0) return mine;
    return mine === 0 ? serverLimit : Math.min(mine, serverLimit);
  };
  return { requestsPerMinute: pick(own.requestsPerMinute, server.requestsPerMinute), writesPerMinute: pick(own.writesPerMinute, server.writesPerMinute) };
}

/** A token's own limits as stored; null where the server's apply. */
export interface OwnLimits {
  readonly requestsPerMinute: number | null;
  readonly writesPerMinute: number | null;
}

/** The limits in the API's form. */
export function limitsInfo(limits: RateLimits): RateLimitsInfo {
  return { requests_per_minute: limits.requestsPerMinute, writes_per_minute: limits.writesPerMinute };
}

export interface AgentRateLimiter {
  /** Counts a call of `agent` and says whether it may go on. */
  admit(agent: AgentCaller, cost: RateCost): Promise<Admission>;
  /** The server's limits (what a token without its own gets). */
  readonly defaults: RateLimits;
}

interface Pending {
  readonly tokenId: string;
  readonly window: number;
  readonly cost: RateCost;
  readonly resolve: (totals: WindowTotals) => void;
  readonly reject: (error: unknown) => void;
}

/** A window's counts as they stood after one call's own increment. */
interface WindowTotals {
  readonly requests: number;
  readonly writes: number;
}

/** Windows counted by one upsert statement (four values each). */
const MAX_WINDOWS_PER_STATEMENT = 200;

function windowKey(tokenId: string, window: number): string {
  return `${tokenId}\u0000${window}`;
}

export function createAgentRateLimiter(db: Knex, defaults: RateLimits, clock: Clock = systemClock): AgentRateLimiter {
  let queued: Pending[] = [];
  let scheduled = false;
  let flushing = false;
  let lastPrune = 0;

  async function flush(): Promise<void> {
    scheduled = false;
    flushing = true;
    try {
      while (queued.length > 0) {
        const batch = queued;
        queued = [];
        await store(batch);
      }
    } finally {
      flushing = false;
    }
  }

  /**
   * One upsert statement for the batch, a row per (token, window); each call gets the totals as
   * they stood after its own increment. A single statement is atomic on its own: no transaction
   * around it, which on PostgreSQL saves the BEGIN and COMMIT round trips on every agent call.
   */
  async function store(batch: readonly Pending[]): Promise<void> {
    const groups = new Map<string, Pending[]>();
    for (const call of batch) {
      const key = windowKey(call.tokenId, call.window);
      const group = groups.get(key);
      if (group) group.push(call);
      else groups.set(key, [call]);
    }
    try {
      const totals = new Map<string, { requests: number; writes: number }>();
      const entries = [...groups.values()];
      for (let i = 0; i < entries.length; i += MAX_WINDOWS_PER_STATEMENT) {
        const chunk = entries.slice(i, i + MAX_WINDOWS_PER_STATEMENT);
        const rows = await runStatement<{ agent_token_id: string; window_start: number | string; requests: number | string; writes: number | string }>(
          db,
          `insert into ${RATE_TABLE} (agent_token_id, window_start, requests, writes) values ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}
           on conflict (agent_token_id, window_start) do update set requests = ${RATE_TABLE}.requests + excluded.requests, writes = ${RATE_TABLE}.writes + excluded.writes
           returning agent_token_id, window_start, requests, writes`,
          chunk.flatMap((calls) => [
            calls[0]!.tokenId,
            calls[0]!.window,
            calls.reduce((sum, call) => sum + call.cost.requests, 0),
            calls.reduce((sum, call) => sum + call.cost.writes, 0),
          ]),
        );
        for (const row of rows) totals.set(windowKey(row.agent_token_id, Number(row.window_start)), { requests: Number(row.requests), writes: Number(row.writes) });
      }
      for (const [key, calls] of groups) {
        let { requests, writes } = totals.get(key)!;
        // Totals after the last call of the group; walk back to each call's own position.
        for (let i = calls.length - 1; i >= 0; i--) {
          const call = calls[i]!;
          call.resolve({ requests, writes });
          requests -= call.cost.requests;
          writes -= call.cost.writes;
        }
      }
    } catch (error) {
      for (const call of batch) call.reject(error);
      return;
    }
    const now = clock.now();
    if (now - lastPrune > WINDOW_MS) {
      lastPrune = now;
      // Past windows are never read again; a failed prune is tried again a minute later.
      await db(RATE_TABLE)
        .where('window_start', '<', Math.floor(now / WINDOW_MS) - 1)
        .delete()
        .catch(() => undefined);
    }
  }

  async function markRefusalAudited(tokenId: string, window: number): Promise<boolean> {
    const changed = await db(RATE_TABLE).where({ agent_token_id: tokenId, window_start: window, refusal_audited: false }).update({ refusal_audited: true });
    return Number(changed) === 1;
  }

  return {
    defaults,
    async admit(agent, cost) {
      const limits = effectiveLimits(agent.limits, agent.creatorRoles.includes(ADMIN_ROLE), defaults);
      if (limits.requestsPerMinute === 0 && limits.writesPerMinute === 0) return { limited: false };
      const now = clock.now();
      const window = Math.floor(now / WINDOW_MS);
      const totals = await new Promise<WindowTotals>((resolve, reject) => {
        queued.push({ tokenId: agent.tokenId, window, cost, resolve, reject });
        if (scheduled || flushing) return;
        scheduled = true;
        setImmediate(() => void flush());
      });
      const resetSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
      const requestsOver = limits.requestsPerMinute > 0 && totals.requests > limits.requestsPerMinute;
      const writesOver = cost.writes > 0 && limits.writesPerMinute > 0 && totals.writes > limits.writesPerMinute;
      const allowed = !requestsOver && !writesOver;
      const [limit, used] =
        writesOver || (limits.requestsPerMinute === 0 && cost.writes > 0)
          ? [limits.writesPerMinute, totals.writes]
          : limits.requestsPerMinute > 0
            ? [limits.requestsPerMinute, totals.requests]
            : [limits.writesPerMinute, totals.writes];
      return {
        limited: true,
        allowed,
        limit,
        remaining: Math.max(0, limit - used),
        resetSeconds,
        firstRefusal: allowed ? false : await markRefusalAudited(agent.tokenId, window),
      };
    },
  };
}
