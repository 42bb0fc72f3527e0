/**
 * Shared by the web app's pure tests (test/web/lib/): a field as `GET /api/meta` describes it, and an
 * order with a line list of items (the fixture `order`, cut down), with one stored order.
 */
import { optionLabel } from '../../web/src/lib/format.ts';
import type { FieldInfo, LineListInfo, ModelInfo, RecordValue } from '../../web/src/lib/types.ts';

export const field = (name: string, kind: FieldInfo['kind'], extra: Partial<FieldInfo> = {}): FieldInfo => ({
  name,
  kind,
  label: optionLabel(name),
  description: '',
  required: false,
  personal: false,
  masked: false,
  governed: false,
  computed: false,
  writable: true,
  ...extra,
});

/** An order's items: at most 3 here, so that the most is easy to pass. */
export const items: LineListInfo = {
  name: 'items',
  label: 'Items',
  description: '',
  min: 1,
  max: 3,
  fields: [
    field('description', 'text', { required: true, length: 200 }),
    field('quantity', 'decimal', { scale: 3, required: true, min: 0.001 }),
    field('unit_price', 'money', { required: true, min: 0 }),
    field('amount', 'money', { computed: true }),
  ],
  denied: ['order.items.note'],
};

export const order: ModelInfo = {
  name: 'order',
  module: 'sales',
  label: 'Order',
  description: '',
  title_field: 'number',
  commands: ['get', 'create', 'update', 'history', 'revert'],
  denied: [],
  fields: [
    field('number', 'text', { required: true }),
    field('deliver_by', 'date'),
    field('total', 'money', { computed: true }),
    field('status', 'select', { governed: true, options: ['draft', 'confirmed', 'done', 'cancelled'] }),
  ],
  actions: [],
  lines: [items],
  rules: [{ fields: ['deliver_by'], message: 'deliver by must be on or after the order date' }],
  locked_in: { field: 'status', states: ['done', 'cancelled'] },
};

/** An order as `get` answers it, with two items. */
export const stored: RecordValue = {
  id: 'O1',
  number: 'AB-1000',
  deliver_by: null,
  total: 1500,
  status: 'draft',
  items: [
    { id: 'L1', description: 'Widget', quantity: 2, unit_price: 500, amount: 1000 },
    { id: 'L2', description: 'Gadget', quantity: 1, unit_price: 500, amount: 500 },
  ],
};
