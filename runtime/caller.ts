/** Who is calling: a person with a session token, or an agent with a scoped agent token. */
export type Caller = PersonCaller | AgentCaller;

export interface PersonCaller {
  readonly kind: 'person';
  readonly userId: string;
  readonly username: string;
  /** The person's current roles (read from the database on every request). */
  readonly roles: readonly string[];
  /** Id of the session token row, for logout. */
  readonly tokenId: string;
  /** The request this caller was resolved for (`X-Request-Id`): its audit rows carry it. */
  readonly requestId?: string;
}

export interface AgentCaller {
  readonly kind: 'agent';
  /** Id of the agent token row: masking tokens, plans and audit entries hang off it. */
  readonly tokenId: string;
  readonly label: string;
  /** Scope patterns as issued (`lead.*`, `*.search`, `party.get`). */
  readonly scopes: readonly string[];
  /** The person who created the token; the agent's rights are the scopes cut down to this person's current rights. */
  readonly creatorId: string;
  readonly creatorUsername: string;
  readonly creatorRoles: readonly string[];
  /** The token's own rate limits (per minute; 0 unlimited); null where the server's apply. */
  readonly limits: { readonly requestsPerMinute: number | null; readonly writesPerMinute: number | null };
  /** The most records one of its bulk commands may change or create, as the token says; absent: the default (runtime/kinds.ts, `BULK_LIMITS.agentMaxAffected`). */
  readonly maxAffected?: number;
  /** The request this caller was resolved for (`X-Request-Id`): its audit rows carry it. */
  readonly requestId?: string;
}
