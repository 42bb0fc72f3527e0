/**
 * Who is calling, for every endpoint that needs a token: the bearer token resolved to a caller
 * (401 otherwise), and for an agent the call counted against its rate limits — over them, 429
 * with `Retry-After`, the call goes no further (nothing is executed or proposed) and the first
 * refusal of the token in a window is audited. Agent answers carry the IETF draft's
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers.
 */
import type { ServerResponse } from 'node:http';
import type { Knex } from 'knex';
import { auditActor, writeAudit } from '../audit/store.ts';
import { authenticate } from '../auth/authenticate.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { AgentRateLimiter, RateCost } from '../auth/rate-limits.ts';
import type { AgentCaller, Caller } from '../caller.ts';
import { HttpError } from '../errors.ts';
import { callerOfRequest, noteEvent } from './observe.ts';

export const RATE_LIMITED = 'rate limit exceeded';

const ONE_REQUEST: RateCost = { requests: 1, writes: 0 };

export interface Callers {
  /**
   * The caller of a request with this `Authorization` header. An agent is counted (`cost`, one
   * request by default) and refused with 429 over its limits; `what` names the call in the audit
   * trail (a command id, or the endpoint).
   */
  of(authorization: string | undefined, res: ServerResponse, what: string, cost?: RateCost): Promise<Caller>;
  /** Counts an agent's call that was authenticated earlier (MCP knows its cost only after reading the body). */
  admit(agent: AgentCaller, res: ServerResponse, what: string, cost: RateCost): Promise<void>;
  /**
   * A request refused before its caller was resolved (a body that is not JSON, say) costs an agent
   * one request all the same, so that malformed calls cannot flood the service past the agent's
   * limits: counted (429 when over) when the token is an agent's. Without a token that works it
   * throws the 401 (SPEC 5 and 7: a missing, unknown, expired or revoked token is 401, before
   * anything else is said of the call); for a person nothing happens.
   */
  chargeRefusal(authorization: string | undefined, res: ServerResponse, what: string): Promise<void>;
  readonly limiter: AgentRateLimiter;
  /** The time for expiry, the lockout and rate windows (the limiter reads the same clock). */
  readonly clock: Clock;
}

export function createCallers(db: Knex, limiter: AgentRateLimiter, logError: (error: unknown) => void, clock: Clock = systemClock): Callers {
  async function admit(agent: AgentCaller, res: ServerResponse, what: string, cost: RateCost): Promise<void> {
    const admission = await limiter.admit(agent, cost);
    if (!admission.limited) return;
    res.setHeader('RateLimit-Limit', String(admission.limit));
    res.setHeader('RateLimit-Remaining', String(admission.remaining));
    res.setHeader('RateLimit-Reset', String(admission.resetSeconds));
    if (admission.allowed) return;
    res.setHeader('Retry-After', String(admission.resetSeconds));
    noteEvent(res, { rateLimited: true });
    if (admission.firstRefusal) {
      // Once per window and token, on whichever instance refused first: a flood must not flood the trail.
      await writeAudit(db, { ...auditActor(agent), command: what, access: cost.writes > 0 ? 'write' : 'read', outcome: 'refused', status: 429, error: RATE_LIMITED }).catch(logError);
    }
    throw new HttpError(429, RATE_LIMITED);
  }

  return {
    limiter,
    clock,
    admit,
    async chargeRefusal(authorization, res, what) {
      // A call without a token that works is answered 401, whatever is wrong with its body
      // (SPEC 5: every call but the sign-in needs one): the 401 is thrown, and stands for the refusal.
      const caller = callerOfRequest(await authenticate(db, authorization, clock.now()), res);
      // An audited name of bounded length: `what` may carry a path the client chose.
      if (caller.kind === 'agent') await admit(caller, res, what.slice(0, 100), ONE_REQUEST);
    },
    async of(authorization, res, what, cost = ONE_REQUEST) {
      const caller = callerOfRequest(await authenticate(db, authorization, clock.now()), res);
      if (caller.kind === 'agent') await admit(caller, res, what, cost);
      return caller;
    },
  };
}
