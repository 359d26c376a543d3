import { ORDER_STATUSES, OrderStatus } from './order-status';

/**
 * The order state machine as one table (state × operation → next state, guard, effects, permission).
 * The service asks it before every change; `renderStateMachineMarkdown()` writes it into the docs; a unit
 * test walks every (state, operation) pair; `assertValidStateMachine()` checks it at boot (Vendure-style).
 * Pure domain code: no HTTP, no database.
 */
export type OrderAction = 'confirm' | 'cancel' | 'ship' | 'deliver' | 'refund';
/** Changes that are not transitions but are allowed only in some states. */
export type OrderEdit = 'replace' | 'patch' | 'delete' | 'changeItems';
export type OrderOperation = OrderAction | OrderEdit;

/** Who may run an action: the order's owner (or an admin), or an admin only. */
export type ActionPermission = 'OWNER_OR_ADMIN' | 'ADMIN';

/** A precondition on the order beyond its status, with the error code when it fails. */
export type TransitionGuard = 'HAS_ITEMS' | 'HAS_DELIVERY_ADDRESS';
export const GUARD_ERRORS: Record<TransitionGuard, 'ORDER_EMPTY' | 'DELIVERY_ADDRESS_MISSING'> = {
  HAS_ITEMS: 'ORDER_EMPTY',
  HAS_DELIVERY_ADDRESS: 'DELIVERY_ADDRESS_MISSING',
};

/** Side effects run in the same transaction as the status change. */
export type TransitionEffect = 'RESERVE_STOCK' | 'RELEASE_STOCK';

/** The timestamp column an action stamps. */
export type TransitionTimestamp = 'confirmedAt' | 'shippedAt' | 'deliveredAt' | 'cancelledAt' | 'refundedAt';

export interface Transition {
  from: readonly OrderStatus[];
  to: OrderStatus;
  permission: ActionPermission;
  guards: readonly TransitionGuard[];
  /** Effects keyed by the state the order leaves (cancel releases stock only when it was reserved). */
  effects: Partial<Record<OrderStatus, readonly TransitionEffect[]>>;
  stamps: TransitionTimestamp;
}

export const ORDER_TRANSITIONS: Readonly<Record<OrderAction, Transition>> = {
  confirm: {
    from: ['CREATED'],
    to: 'CONFIRMED',
    permission: 'OWNER_OR_ADMIN',
    guards: ['HAS_ITEMS'],
    effects: { CREATED: ['RESERVE_STOCK'] },
    stamps: 'confirmedAt',
  },
  cancel: {
    from: ['CREATED', 'CONFIRMED'],
    to: 'CANCELLED',
    permission: 'OWNER_OR_ADMIN',
    guards: [],
    effects: { CONFIRMED: ['RELEASE_STOCK'] },
    stamps: 'cancelledAt',
  },
  ship: {
    from: ['CONFIRMED'],
    to: 'SHIPPED',
    permission: 'ADMIN',
    guards: ['HAS_DELIVERY_ADDRESS'],
    effects: {},
    stamps: 'shippedAt',
  },
  deliver: {
    from: ['SHIPPED'],
    to: 'DELIVERED',
    permission: 'ADMIN',
    guards: [],
    effects: {},
    stamps: 'deliveredAt',
  },
  refund: {
    from: ['SHIPPED', 'DELIVERED'],
    to: 'REFUNDED',
    permission: 'ADMIN',
    guards: [],
    effects: {},
    stamps: 'refundedAt',
  },
};

/** States in which an edit is allowed (DECISIONS: PUT and items only in CREATED, PATCH also in CONFIRMED). */
export const ORDER_EDITS: Readonly<Record<OrderEdit, readonly OrderStatus[]>> = {
  replace: ['CREATED'],
  patch: ['CREATED', 'CONFIRMED'],
  delete: ['CREATED', 'CANCELLED'],
  changeItems: ['CREATED'],
};

export const ORDER_ACTIONS = Object.keys(ORDER_TRANSITIONS) as OrderAction[];
export const ORDER_EDIT_NAMES = Object.keys(ORDER_EDITS) as OrderEdit[];

export function isAllowed(operation: OrderOperation, status: OrderStatus): boolean {
  if (operation in ORDER_TRANSITIONS)
    return ORDER_TRANSITIONS[operation as OrderAction].from.includes(status);
  return ORDER_EDITS[operation as OrderEdit].includes(status);
}

/** The facts about an order a guard needs. */
export interface GuardFacts {
  itemCount: number;
  hasDeliveryAddress: boolean;
}

export function failedGuard(transition: Transition, facts: GuardFacts): TransitionGuard | undefined {
  return transition.guards.find((guard) =>
    guard === 'HAS_ITEMS'
      ? facts.itemCount === 0
      : guard === 'HAS_DELIVERY_ADDRESS'
        ? !facts.hasDeliveryAddress
        : false,
  );
}

/** Boot-time check: known states only, every state reachable from CREATED, no action that goes nowhere. */
export function assertValidStateMachine(): void {
  const known = new Set<string>(ORDER_STATUSES);
  const problems: string[] = [];
  for (const [action, t] of Object.entries(ORDER_TRANSITIONS)) {
    if (t.from.length === 0) problems.push(`${action} has no source state`);
    for (const s of [...t.from, t.to, ...Object.keys(t.effects)]) {
      if (!known.has(s)) problems.push(`${action} names unknown state ${s}`);
    }
    if (t.from.includes(t.to)) problems.push(`${action} loops on ${t.to}`);
    for (const s of Object.keys(t.effects)) {
      if (!t.from.includes(s as OrderStatus))
        problems.push(`${action} has effects for ${s}, which it never leaves`);
    }
  }
  for (const [edit, states] of Object.entries(ORDER_EDITS)) {
    for (const s of states) if (!known.has(s)) problems.push(`${edit} names unknown state ${s}`);
  }
  const reachable = new Set<OrderStatus>(['CREATED']);
  for (let grew = true; grew;) {
    grew = false;
    for (const t of Object.values(ORDER_TRANSITIONS)) {
      if (t.from.some((s) => reachable.has(s)) && !reachable.has(t.to)) {
        reachable.add(t.to);
        grew = true;
      }
    }
  }
  for (const s of ORDER_STATUSES) if (!reachable.has(s)) problems.push(`${s} is unreachable from CREATED`);
  if (problems.length > 0) throw new Error(`Invalid order state machine: ${problems.join('; ')}`);
}

/** The table as Markdown, for docs/order-state-machine.md (a test keeps the file current). */
export function renderStateMachineMarkdown(): string {
  const lines = [
    '# Order state machine',
    '',
    'Generated from `src/orders/domain/order-state-machine.ts` (`npm run docs:state-machine`); a unit test fails',
    'when this file and the table differ. Any operation not listed for a status is `409 INVALID_ORDER_STATE`.',
    '',
    '## Actions (`POST /api/v1/orders/{orderId}/<action>`)',
    '',
    '| Action | From | To | Who | Guard (error) | Effects | Stamps |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const action of ORDER_ACTIONS) {
    const t = ORDER_TRANSITIONS[action];
    const guards = t.guards.map((g) => `${g} (${GUARD_ERRORS[g]})`).join(', ') || '—';
    const effects =
      Object.entries(t.effects)
        .map(([from, list]) => `from ${from}: ${(list ?? []).join(', ')}`)
        .join('; ') || '—';
    const who = t.permission === 'ADMIN' ? 'ADMIN' : 'owner or ADMIN';
    lines.push(
      `| ${action} | ${t.from.join(', ')} | ${t.to} | ${who} | ${guards} | ${effects} | ${t.stamps} |`,
    );
  }
  lines.push('', '## Edits', '', '| Edit | Allowed in |', '|---|---|');
  const editNames: Record<OrderEdit, string> = {
    replace: '`PUT /orders/{orderId}`',
    patch: '`PATCH /orders/{orderId}`',
    delete: '`DELETE /orders/{orderId}`',
    changeItems: 'add or remove items',
  };
  for (const edit of ORDER_EDIT_NAMES) lines.push(`| ${editNames[edit]} | ${ORDER_EDITS[edit].join(', ')} |`);
  return `${lines.join('\n')}\n`;
}
