/**
 * Baselines for `npm run bench`: the least a `lead.get` can cost. One prepared statement on the
 * same database (the SQLite file through better-sqlite3, or PostgreSQL through a pg pool of the
 * size rmsgen uses by default, with a named statement), behind bare Express 5 (JSON body parsing
 * included) or bare node:http. No auth, no rights, no audit: the gap to rmsgen is what those cost.
 *
 *   node --import tsx bench/baseline-server.ts <express|http> <sqlite:<file>|postgres://…> <port>
 */
import { createServer } from 'node:http';
import express from 'express';

const [mode, databaseUrl, portText] = process.argv.slice(2);
if ((mode !== 'express' && mode !== 'http') || !databaseUrl || !portText) {
  console.error('usage: baseline-server.ts <express|http> <sqlite:<file>|postgres://…> <port>');
  process.exit(2);
}

type Lookup = (id: string) => Promise<Record<string, unknown> | undefined>;

async function openLookup(url: string): Promise<Lookup> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    return async (id) => (await pool.query({ name: 'lead-get', text: 'SELECT * FROM lead WHERE id = $1', values: [id] })).rows[0];
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(url.replace(/^sqlite:/, ''), { readonly: true });
  const select = db.prepare('SELECT * FROM lead WHERE id = ?');
  return async (id) => select.get(id) as Record<string, unknown> | undefined;
}

const lookup = await openLookup(databaseUrl);

async function answer(id: unknown): Promise<{ status: number; body: string }> {
  const row = typeof id === 'string' ? await lookup(id) : undefined;
  return row ? { status: 200, body: JSON.stringify({ denied: [], value: row }) } : { status: 400, body: '{"error":"not found"}' };
}

const port = Number(portText);
if (mode === 'express') {
  const app = express();
  app.use(express.json());
  app.post('/api/lead/get', async (req, res) => {
    const { status, body } = await answer((req.body as { id?: unknown } | undefined)?.id);
    res.status(status).type('application/json').send(body);
  });
  app.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
} else {
  createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let id: unknown;
      try {
        id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id;
      } catch {
        id = undefined;
      }
      void answer(id).then(({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
  }).listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
}
