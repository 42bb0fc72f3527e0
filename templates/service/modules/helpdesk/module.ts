import { defineModule } from 'rmsgen/generator/define.ts';

export default defineModule({
  label: 'Helpdesk',
  description: 'Customers and the tickets they raise.',
  models: {
    customer: {
      label: 'Customer',
      description: 'A person who asks for help.',
      title: 'name',
      fields: {
        name: { kind: 'text', required: true, personal: true, label: 'Name' }, // agents see NAME_1
        email: { kind: 'text', personal: true, label: 'Email' },
      },
    },
    ticket: {
      label: 'Ticket',
      description: 'A question or problem of a customer, open until it is solved.',
      title: 'subject',
      fields: {
        subject: { kind: 'text', required: true, label: 'Subject', search: true },
        customer: { kind: 'ref', to: 'customer', required: true, label: 'Customer' },
        status: { kind: 'select', options: ['open', 'solved'], governed: true, label: 'Status' }, // changed only by actions
        solution: { kind: 'longtext', label: 'Solution' },
      },
      list: ['customer', 'status'],
      actions: {
        solve: { description: 'Mark an open ticket as solved, saying how', from: 'open', to: 'solved', required: ['solution'] },
      },
    },
  },
  roles: {
    support: { customer: '*', ticket: '*' },
  },
});
