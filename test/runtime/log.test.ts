/**
 * The log's lines (runtime/log.ts): a request's line in JSON and in text, an error's line with its
 * stack and code and never a database error's values, and lines written in batches.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { rememberStatement } from '../../runtime/errors.ts';
import { createLineWriter, formatErrorLine, formatRequestLine, type RequestLogEntry } from '../../runtime/log.ts';

const entry: RequestLogEntry = {
  time: '2026-03-01T10:00:00.000Z',
  requestId: 'req-1',
  method: 'POST',
  path: '/api/lead/get',
  interface: 'rest',
  command: 'lead.get',
  callerKind: 'agent',
  callerLabel: 'sales bot',
  status: 200,
  durationMs: 1.23456,
  bytes: 345,
};

describe('formatRequestLine', () => {
  it.each<[string, Partial<RequestLogEntry>, string, string]>([
    [
      'a command of an agent',
      {},
      '{"time":"2026-03-01T10:00:00.000Z","level":"info","request_id":"req-1","method":"POST","path":"/api/lead/get","interface":"rest","command":"lead.get","caller_kind":"agent","caller_label":"sales bot","status":200,"duration_ms":1.235,"bytes":345}',
      '2026-03-01T10:00:00.000Z req-1 POST /api/lead/get rest lead.get agent "sales bot" 200 1.235ms 345B',
    ],
    [
      'a request without command or caller',
      { command: undefined, callerKind: 'none', callerLabel: undefined, path: '/healthz', method: 'GET', status: 503 },
      '{"time":"2026-03-01T10:00:00.000Z","level":"info","request_id":"req-1","method":"GET","path":"/healthz","interface":"rest","command":null,"caller_kind":"none","caller_label":null,"status":503,"duration_ms":1.235,"bytes":345}',
      '2026-03-01T10:00:00.000Z req-1 GET /healthz rest - none - 503 1.235ms 345B',
    ],
    [
      'a path and a label with quotes, controls and non-ASCII',
      { path: '/a"b\n', callerLabel: 'Zoë "x"' },
      '{"time":"2026-03-01T10:00:00.000Z","level":"info","request_id":"req-1","method":"POST","path":"/a\\"b\\n","interface":"rest","command":"lead.get","caller_kind":"agent","caller_label":"Zoë \\"x\\"","status":200,"duration_ms":1.235,"bytes":345}',
      '2026-03-01T10:00:00.000Z req-1 POST "/a\\"b\\n" rest lead.get agent "Zoë \\"x\\"" 200 1.235ms 345B',
    ],
  ])('%s', (_case, change, json, text) => {
    const line = { ...entry, ...change };
    expect(formatRequestLine('json', line)).toBe(json);
    expect(JSON.parse(formatRequestLine('json', line))).toMatchObject({ path: line.path });
    expect(formatRequestLine('text', line)).toBe(text);
  });
});

describe('formatErrorLine', () => {
  it('writes an error with its stack, code and request id; in text as the error log always did, the request last', () => {
    const error = Object.assign(new Error('boom'), { code: 'E_TEST' });
    const json = JSON.parse(formatErrorLine('json', error, 'req-9', '2026-03-01T10:00:00.000Z'));
    expect(json).toMatchObject({ time: '2026-03-01T10:00:00.000Z', level: 'error', request_id: 'req-9', error: 'Error: boom', code: 'E_TEST' });
    expect(json.stack).toMatch(/^Error: boom\n {4}at /);
    const text = formatErrorLine('text', error, 'req-9');
    expect(text).toMatch(/^Error: boom\n {4}at /);
    expect(text.endsWith('\n  code: E_TEST\n  request: req-9')).toBe(true);
    expect(formatErrorLine('text', 'thrown text', undefined)).toBe('unexpected error: a thrown string, not an Error');
  });

  it("keeps a database error's names and statement, never its message's values", () => {
    const error = Object.assign(new Error('invalid input syntax for type date: "Jane Secret"'), { code: '22007', severity: 'ERROR', table: 'lead' });
    rememberStatement(error, 'insert into "lead" ("title") values (?)');
    const line = formatErrorLine('json', error, undefined);
    expect(line).not.toContain('Jane Secret');
    expect(JSON.parse(line)).toMatchObject({ request_id: null, code: '22007', table: 'lead', statement: 'insert into "lead" ("title") values (?)', error: 'Error (a database error; its message is not logged: it may quote values)' });
  });
});

describe('createLineWriter', () => {
  it("writes a turn's lines in one write, and what is pending on flush", async () => {
    const stream = new PassThrough();
    const writes: string[] = [];
    stream.on('data', (chunk: Buffer) => writes.push(chunk.toString()));
    const writer = createLineWriter(stream);
    writer.write('one');
    writer.write('two');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['one\ntwo\n']);
    writer.write('three');
    writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['one\ntwo\n', 'three\n']);
  });
});
