import { defineModule } from '../../generator/define.ts';

export default defineModule({
  label: 'Accounting',
  description: 'Invoices to parties, posted and paid through their workflow.',
  dependsOn: ['crm'],
  currency: 'EUR',
  models: {
    invoice: {
      label: 'Invoice',
      description: 'A bill sent to a party, optionally for a lead.',
      title: 'number',
      fields: {
        number: { kind: 'text', required: true, label: 'Number', unique: true, search: true },
        party: { kind: 'ref', to: 'party', required: true, label: 'Party' },
        lead: { kind: 'ref', to: 'lead', label: 'Lead' },
        amount: { kind: 'money', required: true, label: 'Amount' },
        issue_date: { kind: 'date', required: true, label: 'Issue date', index: true },
        due_date: { kind: 'date', label: 'Due date' },
        state: { kind: 'select', options: ['draft', 'posted', 'paid', 'cancelled'], governed: true, label: 'State' },
        internal_note: { kind: 'longtext', label: 'Internal note', agents: 'hidden' },
      },
      // Invoices of a state by due date (what is overdue).
      indexes: [['state', 'due_date']],
      list: ['party', 'state', 'amount', 'due_date'],
      actions: {
        post: { description: 'Post a draft invoice', from: 'draft', to: 'posted', needs_approval: true },
        pay: { description: 'Mark a posted invoice as paid', from: 'posted', to: 'paid', needs_approval: true },
        cancel: { description: 'Cancel a draft or posted invoice', from: ['draft', 'posted'], to: 'cancelled' },
      },
    },
  },
  roles: {
    sales: { invoice: ['get', 'list', 'search'] },
    accountant: { invoice: '*' },
  },
});
