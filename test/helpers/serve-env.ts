/**
 * The environment for a child `rmsgen` process in a test: the test's own, without the variables
 * the server's commands read (runtime/cli.ts, runtime/mcp/origins.ts), so that a developer's PORT,
 * RMS_DB or admin password cannot leak into what a test starts. One list, so that a variable
 * added to `serve` is kept out of every such test at once.
 */
const SERVE_VARIABLES = [
  'PORT',
  'HOST',
  'RMS_DB',
  'RMS_DB_POOL_SIZE',
  'RMS_DB_STATEMENT_TIMEOUT_MS',
  'RMS_PUBLIC_URL',
  'RMS_ADMIN_PASSWORD',
  'RMS_ADMIN_PASSWORD_FILE',
  'RMS_AGENT_REQUESTS_PER_MINUTE',
  'RMS_AGENT_WRITES_PER_MINUTE',
  'RMS_TRUST_PROXY',
  'RMS_REQUEST_TIMEOUT_MS',
  'RMS_KEEP_ALIVE_TIMEOUT_MS',
  'RMS_MCP_ALLOWED_ORIGINS',
  'RMS_SERVICE_NAME',
  'RMS_SERVICE_COLOUR',
  'RMS_LOCALE',
  'RMS_RETAIN_AUDIT_DAYS',
  'RMS_RETAIN_AUDIT_READS_DAYS',
  'RMS_RETAIN_HISTORY_DAYS',
  'RMS_RETAIN_AGENT_DAYS',
  'RMS_FILES',
  'RMS_MAX_UPLOAD',
  'RMS_AGENT_FILE_BYTES_PER_DAY',
];

/** `process.env` without the server's variables, and without `also` (e.g. NODE_OPTIONS). */
export function envWithoutServeVariables(also: readonly string[] = []): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [...SERVE_VARIABLES, ...also]) delete env[name];
  return env;
}

/**
 * The environment for a process a test starts (the real CLI, a copy's vitest): `envWithoutServeVariables`,
 * and without vitest's own variables, NODE_OPTIONS (vitest's loader hooks) and RMS_TEST_SUMMARY_FILE (a
 * child vitest's counts must not join this run's summary: CI's total would count them twice); without `also`.
 */
export function childEnv(also: readonly string[] = []): NodeJS.ProcessEnv {
  const env = envWithoutServeVariables(['NODE_OPTIONS', 'RMS_TEST_SUMMARY_FILE', ...also]);
  for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name];
  return env;
}
