/**
 * Shared by the PostgreSQL-only suites (`test/pg`, `test/multi-instance`): the server URL from
 * `RMS_TEST_PG_URL`, and the reason printed in the suite's title when it is skipped.
 */
import { testPostgresUrl } from './postgres.ts';

export const PG_URL = testPostgresUrl();

/** Appended to a PostgreSQL-only suite's title, so a skipped run says why. */
export const PG_SKIP_NOTE = PG_URL
  ? ''
  : ' [skipped: RMS_TEST_PG_URL is not set; run `scripts/pg-cluster.sh start` and set it to the URL it prints, as .ci/run does]';

// Said once per test file that imports this, so a run without PostgreSQL shows why it skipped.
if (!PG_URL) console.log(`PostgreSQL suite${PG_SKIP_NOTE}`);
