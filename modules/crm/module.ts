import { defineModule } from '../../generator/define.ts';

export default defineModule({
  label: 'CRM',
  description: 'Parties (people and companies) and the sales leads around them.',
  models: {
    party: {
      label: 'Party',
      description: 'A person or company the business deals with.',
      title: 'name',
      fields: {
        name: { kind: 'text', required: true, personal: true, label: 'Name', search: true },
        email: { kind: 'text', personal: true, label: 'Email' },
        phone: { kind: 'text', personal: true, label: 'Phone' },
        kind: { kind: 'select', options: ['person', 'company'], label: 'Kind' },
        tax_id: { kind: 'text', label: 'Tax ID', read: ['admin', 'accountant'], agents: 'hidden', unique: true },
        notes: { kind: 'longtext', personal: true, label: 'Notes' },
      },
      list: ['kind', 'email', 'phone'],
    },
    lead: {
      label: 'Lead',
      description: 'A sales opportunity with a party, moved through its stages by actions.',
      title: 'title',
      fields: {
        title: { kind: 'text', required: true, label: 'Title', search: true },
        party: { kind: 'ref', to: 'party', label: 'Party' },
        stage: { kind: 'select', options: ['new', 'qualified', 'won', 'lost'], governed: true, label: 'Stage' },
        expected_revenue: { kind: 'money', label: 'Expected revenue' },
        probability: { kind: 'number', label: 'Probability (%)' },
        close_date: { kind: 'date', label: 'Close date', index: true },
        hot: { kind: 'bool', label: 'Hot' },
        notes: { kind: 'longtext', personal: true, label: 'Notes' },
        lost_reason: { kind: 'text', label: 'Lost reason' },
      },
      // What the lead screens and the examples filter and sort on: leads of a stage by expected
      // revenue, hot leads by close date.
      indexes: [
        ['stage', 'expected_revenue'],
        ['hot', 'close_date'],
      ],
      list: ['party', 'stage', 'expected_revenue', 'close_date'],
      actions: {
        qualify: { description: 'Mark a new lead as qualified', from: 'new', to: 'qualified', needs_approval: false },
        win: { description: 'Mark a qualified lead as won', from: 'qualified', to: 'won' },
        lose: {
          description: 'Mark a lead as lost, giving the reason',
          from: ['new', 'qualified'],
          to: 'lost',
          required: ['lost_reason'],
        },
      },
    },
  },
  roles: {
    sales: { party: '*', lead: '*' },
    accountant: {
      party: ['get', 'list', 'search', 'create', 'update'],
      lead: ['get', 'list', 'search'],
    },
  },
});
