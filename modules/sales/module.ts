import { defineModule } from '../../generator/define.ts';

export default defineModule({
  label: 'Sales',
  description: 'Orders of parties, with their items, confirmed, delivered or cancelled.',
  dependsOn: ['crm'],
  currency: 'EUR',
  models: {
    order: {
      title: 'number',
      fields: {
        number: { kind: 'text', required: true, unique: true, pattern: '[A-Z]{2}-[0-9]{4,}' },
        customer: { kind: 'ref', to: 'party', required: true },
        ordered_on: { kind: 'date', default: 'today' },
        deliver_by: { kind: 'date' },
        contact_email: { kind: 'email' },
        website: { kind: 'url' },
        discount_pct: { kind: 'decimal', scale: 2, min: 0, max: 100, default: 0 },
        tags: { kind: 'multiselect', options: ['rush', 'gift', 'export'] },
        confirmed_on: { kind: 'date' },
        delivered_at: { kind: 'datetime' },
        credit_limit: { kind: 'money', write: ['admin', 'accountant'] },
        total: { kind: 'money', computed: (o) => o.items.reduce((s, l) => s + l.amount, 0) },
        status: { kind: 'select', options: ['draft', 'confirmed', 'done', 'cancelled'], governed: true, default: 'draft' },
        attachments: { kind: 'file', multiple: true, accept: ['application/pdf', 'image/*'], max_size: '20MB', label: 'Attachments' },
      },
      lines: {
        items: {
          label: 'Items', min: 1, max: 500,
          fields: {
            description: { kind: 'text', required: true, length: 200, index: true },   // finds orders by a line's description
            quantity: { kind: 'decimal', scale: 3, required: true, min: 0.001 },
            unit_price: { kind: 'money', required: true, min: 0 },
            note: { kind: 'text', personal: true },
            // The quantity in thousandths, a whole number: 1.005 × 100 is then 100.5, rounded to 101
            // (in floating point 1.005 * 100 is 100.49999…, which rounds to 100).
            amount: { kind: 'money', computed: (l) => Math.round((Math.round(l.quantity * 1000) * l.unit_price) / 1000) },
          },
        },
      },
      unique: [['customer', 'number']],
      locked_in: ['done', 'cancelled'],
      rules: [
        { fields: ['deliver_by'], message: 'deliver by must be on or after the order date',
          check: (o) => !o.deliver_by || !o.ordered_on || o.deliver_by >= o.ordered_on },
      ],
      actions: {
        confirm: { from: 'draft', to: 'confirmed', set: { confirmed_on: 'today' } },
        cancel: { from: ['draft', 'confirmed'], to: 'cancelled', input: { reason: { kind: 'text', required: true } }, needs_approval: true },
        deliver: { from: 'confirmed', to: 'done', input: { delivered_at: { kind: 'datetime' } } },
      },
    },
  },
  roles: {
    sales: { order: '*' },
    accountant: { order: ['get', 'list', 'search', 'update'] },
  },
});
