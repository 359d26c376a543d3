import {
  EFFECTS,
  GUARDS,
  ORDER_ACTIONS,
  ORDER_EDIT_NAMES,
  ORDER_EDITS,
  ORDER_TRANSITIONS,
  OrderAction,
  OrderEdit,
} from '../domain/order-state-machine';

/**
 * Text derived from the state table (domain/order-state-machine.ts): the description of each action
 * endpoint and docs/order-state-machine.md. Written here, at the HTTP edge, because it names routes.
 */

/** The OpenAPI description of an action: its move, guards, effects and permission, from the table. */
export function describeAction(action: OrderAction): string {
  const t = ORDER_TRANSITIONS[action];
  const parts = [`${t.from.join(' or ')} → ${t.to}.`];
  for (const guard of t.guards)
    parts.push(`Needs ${GUARDS[guard].description} (409 ${GUARDS[guard].error}).`);
  for (const [from, effects] of Object.entries(t.effects)) {
    for (const effect of effects ?? []) {
      const { description, errors } = EFFECTS[effect];
      const failure = errors.length > 0 ? ` (409 ${errors.join(', ')})` : '';
      parts.push(`From ${from} it ${description}${failure}.`);
    }
  }
  const fields = Object.entries(t.params).map(([param, field]) =>
    param === field ? param : `${param} as ${field}`,
  );
  if (fields.length > 0) parts.push(`Keeps ${fields.join(', ')} on the order.`);
  if (t.permission === 'ADMIN') parts.push('Admin only.');
  return parts.join(' ');
}

const EDIT_ROUTES: Record<OrderEdit, string> = {
  replace: '`PUT /orders/{orderId}`',
  patch: '`PATCH /orders/{orderId}`',
  delete: '`DELETE /orders/{orderId}`',
  changeItems: 'add or remove items',
};

/** The table as Markdown, for docs/order-state-machine.md (a test keeps the file current). */
export function renderStateMachineMarkdown(): string {
  const lines = [
    '# Order state machine',
    '',
    'Generated from `src/modules/orders/domain/order-state-machine.ts` (`npm run docs:state-machine`); a unit test fails',
    'when this file and the table differ. Any operation not listed for a status is `409 INVALID_ORDER_STATE`.',
    '',
    '## Actions (`POST /api/v1/orders/{orderId}/<action>`)',
    '',
    '| Action | From | To | Who | Guard (error) | Effects | Stamps | Request fields kept |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const action of ORDER_ACTIONS) {
    const t = ORDER_TRANSITIONS[action];
    const guards = t.guards.map((g) => `${g} (${GUARDS[g].error})`).join(', ') || '—';
    const effects =
      Object.entries(t.effects)
        .map(([from, list]) => `from ${from}: ${(list ?? []).join(', ')}`)
        .join('; ') || '—';
    const who = t.permission === 'ADMIN' ? 'ADMIN' : 'owner or ADMIN';
    const kept =
      Object.entries(t.params)
        .map(([param, field]) => `${param} → ${field}`)
        .join(', ') || '—';
    lines.push(
      `| ${action} | ${t.from.join(', ')} | ${t.to} | ${who} | ${guards} | ${effects} | ${t.stamp} | ${kept} |`,
    );
  }
  lines.push('', '## Edits', '', '| Edit | Allowed in |', '|---|---|');
  for (const edit of ORDER_EDIT_NAMES)
    lines.push(`| ${EDIT_ROUTES[edit]} | ${ORDER_EDITS[edit].join(', ')} |`);
  return `${lines.join('\n')}\n`;
}
