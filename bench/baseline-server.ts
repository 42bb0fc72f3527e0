/**
 * Baselines for `npm run bench`: the least a `lead.get` can cost. One prepared statement on the
 * same SQLite file, behind bare Express (JSON body parsing included) or bare node:http. No auth,
 * no rights, no audit: the gap to rmsgen is what those cost.
 *
 *   node --import tsx bench/baseline-server.ts <express|http> <sqlite file> <port>
 */
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import express from 'express';

const [mode, file, portText] = process.argv.slice(2);
const db = new Database(file!, { readonly: true });
db.pragma('journal_mode = WAL');
const select = db.prepare('SELECT * FROM lead WHERE id = ?');

function answer(id: unknown): { status: number; body: string } {
  const row = typeof id === 'string' ? (select.get(id) as Record<string, unknown> | undefined) : undefined;
  return row ? { status: 200, body: JSON.stringify({ denied: [], value: row }) } : { status: 400, body: '{"error":"not found"}' };
}

const port = Number(portText);
if (mode === 'express') {
  const app = express();
  app.use(express.json());
  app.post('/api/lead/get', (req, res) => {
    const { status, body } = answer(req.body?.id);
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
        id = JSON.parse(Buffer.concat(chunks).toString('utf8')).id;
      } catch {
        id = undefined;
      }
      const { status, body } = answer(id);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  }).listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
}
