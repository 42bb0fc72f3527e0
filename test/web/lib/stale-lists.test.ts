/** Table tests of web/src/lib/stale-lists.ts: what others added to the lists and file fields an edit form would send whole. */
import { describe, expect, it } from 'vitest';
import { addedSince } from '../../../web/src/lib/stale-lists.ts';
import type { ModelInfo, RecordValue } from '../../../web/src/lib/types.ts';
import { field, order } from '../../helpers/web-models.ts';

const model: ModelInfo = { ...order, fields: [...order.fields, field('attachments', 'file', { multiple: true, label: 'Attachments' }), field('scan', 'file', { label: 'Scan' })] };
const file = (id: string) => ({ id, name: `${id}.pdf`, size: 1, type: 'application/pdf', sha256: 'a'.repeat(64) });
const line = (id: string) => ({ id, description: id, quantity: 1, unit_price: 1 });
const opened = { id: 'O1', items: [line('L1')], attachments: [file('F1')], scan: null } as unknown as RecordValue;

describe('addedSince', () => {
  it.each([
    ['nothing added', { items: [line('L1')], attachments: [file('F1')], scan: null }, { items: [] }, []],
    ['a line added, the form sending the lines', { items: [line('L1'), line('L2')] }, { items: [{ id: 'L1' }] }, [`a line in ${order.lines[0]!.label}`]],
    ['two lines added', { items: [line('L1'), line('L2'), line('L3')] }, { items: [] }, [`2 lines in ${order.lines[0]!.label}`]],
    ['a line added, the form not sending the lines', { items: [line('L1'), line('L2')] }, { notes: 'x' }, []],
    ['a line removed by someone else', { items: [] }, { items: [{ id: 'L1' }] }, []],
    ['a file added', { attachments: [file('F1'), file('F2')] }, { attachments: ['F1'] }, ['a file in Attachments']],
    ['a single file put in', { scan: file('F9') }, { scan: null }, ['a file in Scan']],
    ['a line and a file', { items: [line('L1'), line('L2')], attachments: [file('F1'), file('F2')] }, { items: [], attachments: [] }, [`a line in ${order.lines[0]!.label}`, 'a file in Attachments']],
  ])('%s', (_name, now, body, expected) => {
    expect(addedSince(model, opened, { ...opened, ...now } as unknown as RecordValue, body)).toEqual(expected);
  });
});
