/** The webhook commands' answers (runtime/webhooks/commands.ts), as the web app's Webhooks page reads them. */

/** A subscription as the commands answer it: never its secrets, only how many sign. */
export interface WebhookInfo {
  readonly id: string;
  readonly url: string;
  readonly models: readonly string[] | null;
  readonly commands: readonly string[] | null;
  readonly as_role: string;
  readonly secret_count: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by: string;
}

/** One event's delivery to a subscription, as `webhook.deliveries` lists it. */
export interface WebhookDeliveryInfo {
  readonly event_id: string;
  /** `<model>.<command>`. */
  readonly type: string;
  readonly record_id: string;
  readonly record_seq: number;
  readonly status: 'pending' | 'delivered' | 'dead';
  readonly attempts: number;
  readonly last_attempt_at: string | null;
  readonly last_status: number | null;
  readonly last_error: string | null;
  readonly next_attempt_at: string | null;
  readonly delivered_at: string | null;
}
