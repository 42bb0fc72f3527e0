/**
 * `rmsgen user …`: manage the people who sign in. Passwords are read from standard input (the
 * first line when piped, a prompt without echo on a terminal) and never printed or logged.
 */
import type { Command } from 'commander';
import type { Knex } from 'knex';
import { CliError } from '../cli-error.ts';
import { existsSync } from 'node:fs';
import { DEFAULT_DB_URL, openDatabase, parseDatabaseUrl } from '../db/connect.ts';
import type { Registry } from '../registry.ts';
import {
  AuthInputError,
  checkPassword,
  createPerson,
  disablePerson,
  enablePerson,
  findPerson,
  listPeople,
  normalizeUsername,
  setPassword,
  setRoles,
} from './people.ts';
import { ensureAuthTables } from './tables.ts';

interface DbOption {
  readonly db?: string;
}
interface RoleOptions extends DbOption {
  readonly role: string[];
}

export function registerUserCommands(program: Command, loadRegistry: () => Promise<Registry>): void {
  const user = program.command('user').description('Manage the people who sign in (passwords are read from standard input)');
  const dbHelp = `database URL (default: env RMS_DB, else ${DEFAULT_DB_URL})`;

  user
    .command('add')
    .description('Add a person; reads the password from standard input, e.g. `echo "$PW" | rmsgen user add bob --role sales`')
    .argument('<username>')
    .requiredOption('--role <role>', 'role name (repeat the option or separate with commas)', collectRoles)
    .option('--db <url>', dbHelp)
    .action((username: string, options: RoleOptions) =>
      runUserCommand(options, async (db) => {
        const roles = await checkRoles(loadRegistry, options.role);
        const password = await readPassword();
        const person = await createPerson(db, { username, password, roles });
        say(`added user ${person.username} (roles: ${person.roles.join(', ')})`);
      }, true),
    );

  user
    .command('passwd')
    .description("Set a person's password from standard input; ends their sessions everywhere (their agent tokens keep working: revoke those apart)")
    .argument('<username>')
    .option('--db <url>', dbHelp)
    .action((username: string, options: DbOption) =>
      runUserCommand(options, async (db) => {
        await requireExisting(db, username);
        const password = await readPassword();
        await setPassword(db, username, password);
        say(`password of ${normalizeUsername(username)} changed; their sessions were signed out`);
      }),
    );

  user
    .command('disable')
    .description('Disable a person: no sign-in, sessions revoked, their agent tokens refused while disabled')
    .argument('<username>')
    .option('--db <url>', dbHelp)
    .action((username: string, options: DbOption) =>
      runUserCommand(options, async (db) => {
        await disablePerson(db, username);
        say(`disabled ${normalizeUsername(username)}; their sessions were revoked and their agent tokens are refused until enabled`);
      }),
    );

  user
    .command('enable')
    .description('Enable a disabled person again')
    .argument('<username>')
    .option('--db <url>', dbHelp)
    .action((username: string, options: DbOption) =>
      runUserCommand(options, async (db) => {
        await enablePerson(db, username);
        say(`enabled ${normalizeUsername(username)}`);
      }),
    );

  user
    .command('roles')
    .description("Replace a person's roles; their agent tokens lose whatever the person loses")
    .argument('<username>')
    .requiredOption('--role <role>', 'role name (repeat the option or separate with commas)', collectRoles)
    .option('--db <url>', dbHelp)
    .action((username: string, options: RoleOptions) =>
      runUserCommand(options, async (db) => {
        const roles = await checkRoles(loadRegistry, options.role);
        const person = await setRoles(db, username, roles);
        say(`roles of ${person.username}: ${person.roles.join(', ')}`);
      }),
    );

  user
    .command('list')
    .description('List people with their roles and status')
    .option('--json', 'print JSON')
    .option('--db <url>', dbHelp)
    .action((options: DbOption & { json?: boolean }) =>
      runUserCommand(options, async (db) => {
        const people = await listPeople(db);
        if (options.json) {
          say(JSON.stringify(people.map((p) => ({ username: p.username, roles: p.roles, disabled: p.disabled, created: p.createdAt })), null, 2));
          return;
        }
        const rows = [['USERNAME', 'ROLES', 'STATUS', 'CREATED'], ...people.map((p) => [p.username, p.roles.join(',') || '-', p.disabled ? 'disabled' : 'active', p.createdAt])];
        const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
        for (const row of rows) say(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
      }),
    );
}

function collectRoles(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((r) => r.trim()).filter((r) => r !== '')];
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Opens the database, makes sure the auth tables exist, runs `action`; an input error becomes a
 * CliError, one line, and so does a database that is not there: a SQLite file that does not exist
 * (only `user add` makes one: a person may be added before the first start), a PostgreSQL server
 * that cannot be reached.
 */
async function runUserCommand(options: DbOption, action: (db: Knex) => Promise<void>, creates = false): Promise<void> {
  let db: Knex | undefined;
  try {
    const url = options.db || process.env.RMS_DB || DEFAULT_DB_URL;
    let target: ReturnType<typeof parseDatabaseUrl>;
    try {
      target = parseDatabaseUrl(url);
      if (!creates && target.dialect === 'sqlite' && target.location !== ':memory:' && !existsSync(target.location)) {
        throw new Error(`no database at ${target.location} (the server makes it on its first start; or check --db)`);
      }
      db = openDatabase(url);
    } catch (err) {
      throw new AuthInputError((err as Error).message);
    }
    try {
      await ensureAuthTables(db);
    } catch (err) {
      // The URL (and its password) stays out: the driver's own words say what failed.
      const code = (err as { code?: unknown }).code;
      if (target.dialect === 'postgres' && typeof code === 'string' && /^(E[A-Z]+|28|3D)/.test(code)) throw new AuthInputError(`cannot use the database: ${(err as Error).message}`);
      throw err;
    }
    await action(db);
  } catch (err) {
    if (!(err instanceof AuthInputError)) throw err;
    throw new CliError(`error: ${err.message}`);
  } finally {
    await db?.destroy();
  }
}

async function requireExisting(db: Knex, username: string): Promise<void> {
  if (!(await findPerson(db, username))) throw new AuthInputError(`no user named ${normalizeUsername(username)}`);
}

async function checkRoles(loadRegistry: () => Promise<Registry>, roles: readonly string[]): Promise<string[]> {
  let registry: Registry;
  try {
    registry = await loadRegistry();
  } catch (err) {
    throw new AuthInputError(`cannot load the generated registry to check roles (run rmsgen build): ${(err as Error).message}`);
  }
  const known = Object.keys(registry.roles).sort();
  const unknown = roles.filter((role) => !Object.hasOwn(registry.roles, role));
  if (roles.length === 0) throw new AuthInputError(`give at least one --role; known roles: ${known.join(', ')}`);
  if (unknown.length > 0) {
    throw new AuthInputError(`unknown role${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; known roles: ${known.join(', ')}`);
  }
  return [...roles];
}

/** Reads a password: the first line of piped standard input, or a prompt without echo on a terminal. */
async function readPassword(): Promise<string> {
  const password = process.stdin.isTTY ? await promptHidden('Password: ') : await readFirstLine(process.stdin);
  checkPassword(password);
  return password;
}

async function readFirstLine(stream: NodeJS.ReadStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.includes('\n')) break;
  }
  stream.pause();
  const line = text.split('\n', 1)[0] ?? '';
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.resume();
    const done = (result: string | Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(value);
        if (ch === '\u0003') return done(new AuthInputError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
