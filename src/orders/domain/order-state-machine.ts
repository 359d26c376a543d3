import type { ActionParams, OrderFieldChanges, OrderTextField, OrderTimestampField } from './order';
import { ORDER_STATUSES, OrderStatus } from './order-status';

/**
 * The order state machine as one executable table (Vendure-style): each action names the states it
 * leaves, the state it enters, who may run it, its guards (functions over facts of the order, each with
 * the error it fails with), its effects by the state left, the time stamp it writes and the request
 * fields it stores. The actions service runs it, the HTTP layer derives endpoint descriptions and
 * docs/order-state-machine.md from it, and `assertValidStateMachine()` checks it at boot.
 * Adding an action: a row here, an effect handler if it has a new effect, and one route.
 * Pure domain code: no HTTP, no database.
 */
export type OrderAction = 'confirm' | 'cancel' | 'ship' | 'deliver' | 'refund';
/** Changes that are not transitions but are allowed only in some states. */
export type OrderEdit = 'replace' | 'patch' | 'delete' | 'changeItems';
export type OrderOperation = OrderAction | OrderEdit;

/** Who may run an action: the order's owner (or an admin), or an admin only. */
export type ActionPermission = 'OWNER_OR_ADMIN' | 'ADMIN';

/** The facts about an order that guards judge. */
export interface GuardFacts {
  itemCount: number;
  hasDeliveryAddress: boolean;
}

export interface GuardDefinition {
  holds: (facts: GuardFacts) => boolean;
  /** The error code when the guard fails (409). */
  error: 'ORDER_EMPTY' | 'DELIVERY_ADDRESS_MISSING';
  /** What the order needs, for documentation: "needs <description>". */
  description: string;
}

export const GUARDS = {
  HAS_ITEMS: {
    holds: (facts) => facts.itemCount > 0,
    error: 'ORDER_EMPTY',
    description: 'at least one item',
  },
  HAS_DELIVERY_ADDRESS: {
    holds: (facts) => facts.hasDeliveryAddress,
    error: 'DELIVERY_ADDRESS_MISSING',
    description: 'a delivery address',
  },
} as const satisfies Record<string, GuardDefinition>;
export type TransitionGuard = keyof typeof GUARDS;

export interface EffectDefinition {
  /** What happens, for documentation. */
  description: string;
  /** Error codes the effect can fail with (409), which roll the whole action back. */
  errors: readonly 'INSUFFICIENT_STOCK'[];
}

/** Side effects run in the same transaction as the status change; their handlers sit in the actions service. */
export const EFFECTS = {
  RESERVE_STOCK: {
    description: 'reserves the stock of every item atomically',
    errors: ['INSUFFICIENT_STOCK'],
  },
  RELEASE_STOCK: { description: 'releases the stock reserved at confirm', errors: [] },
} as const satisfies Record<string, EffectDefinition>;
export type TransitionEffect = keyof typeof EFFECTS;

export interface Transition {
  from: readonly OrderStatus[];
  to: OrderStatus;
  permission: ActionPermission;
  guards: readonly TransitionGuard[];
  /** Effects keyed by the state the order leaves (cancel releases stock only when it was reserved). */
  effects: Partial<Record<OrderStatus, readonly TransitionEffect[]>>;
  /** The time stamp the action writes. */
  stamp: OrderTimestampField;
  /** Request fields of the action and the order field each sets. */
  params: Partial<Record<keyof ActionParams, OrderTextField>>;
}

export const ORDER_TRANSITIONS: Readonly<Record<OrderAction, Transition>> = {
  confirm: {
    from: ['CREATED'],
    to: 'CONFIRMED',
    permission: 'OWNER_OR_ADMIN',
    guards: ['HAS_ITEMS'],
    effects: { CREATED: ['RESERVE_STOCK'] },
    stamp: 'confirmedAt',
    params: {},
  },
  cancel: {
    from: ['CREATED', 'CONFIRMED'],
    to: 'CANCELLED',
    permission: 'OWNER_OR_ADMIN',
    guards: [],
    effects: { CONFIRMED: ['RELEASE_STOCK'] },
    stamp: 'cancelledAt',
    params: { reason: 'cancellationReason' },
  },
  ship: {
    from: ['CONFIRMED'],
    to: 'SHIPPED',
    permission: 'ADMIN',
    guards: ['HAS_DELIVERY_ADDRESS'],
    effects: {},
    stamp: 'shippedAt',
    params: { trackingNumber: 'trackingNumber', carrier: 'carrier' },
  },
  deliver: {
    from: ['SHIPPED'],
    to: 'DELIVERED',
    permission: 'ADMIN',
    guards: [],
    effects: {},
    stamp: 'deliveredAt',
    params: {},
  },
  refund: {
    from: ['SHIPPED', 'DELIVERED'],
    to: 'REFUNDED',
    permission: 'ADMIN',
    guards: [],
    effects: {},
    stamp: 'refundedAt',
    params: { reason: 'refundReason' },
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

/** The first guard of `transition` that the facts fail, if any. */
export function failedGuard(transition: Transition, facts: GuardFacts): TransitionGuard | undefined {
  return transition.guards.find((guard) => !GUARDS[guard].holds(facts));
}

/** The effects of `transition` when it leaves `from`. */
export function effectsOf(transition: Transition, from: OrderStatus): readonly TransitionEffect[] {
  return transition.effects[from] ?? [];
}

/** The field changes of running `transition` with `params`: the new status and the request fields it keeps. */
export function transitionChanges(transition: Transition, params: ActionParams): OrderFieldChanges {
  const changes: OrderFieldChanges = { status: transition.to };
  for (const [param, field] of Object.entries(transition.params) as Array<
    [keyof ActionParams, OrderTextField]
  >) {
    changes[field] = params[param] ?? null;
  }
  return changes;
}

/** The error codes an action can answer beyond the state check: its guards' and its effects'. */
export type TransitionError = GuardDefinition['error'] | EffectDefinition['errors'][number];

export function transitionErrors(transition: Transition): TransitionError[] {
  const effects = Object.values(transition.effects).flatMap((list) => list ?? []);
  return [
    ...new Set([
      ...transition.guards.map((g) => GUARDS[g].error),
      ...effects.flatMap((e) => EFFECTS[e].errors),
    ]),
  ];
}

/**
 * Boot-time check: known states, guards and effects only, every state reachable from CREATED, no action
 * that goes nowhere, one time stamp per action.
 */
export function assertValidStateMachine(): void {
  const known = new Set<string>(ORDER_STATUSES);
  const problems: string[] = [];
  const stamps = new Map<string, string>();
  for (const [action, t] of Object.entries(ORDER_TRANSITIONS)) {
    if (t.from.length === 0) problems.push(`${action} has no source state`);
    for (const s of [...t.from, t.to, ...Object.keys(t.effects)]) {
      if (!known.has(s)) problems.push(`${action} names unknown state ${s}`);
    }
    if (t.from.includes(t.to)) problems.push(`${action} loops on ${t.to}`);
    for (const [s, effects] of Object.entries(t.effects)) {
      if (!t.from.includes(s as OrderStatus))
        problems.push(`${action} has effects for ${s}, which it never leaves`);
      for (const e of effects ?? [])
        if (!(e in EFFECTS)) problems.push(`${action} names unknown effect ${e}`);
    }
    for (const g of t.guards) if (!(g in GUARDS)) problems.push(`${action} names unknown guard ${g}`);
    const other = stamps.get(t.stamp);
    if (other) problems.push(`${action} and ${other} both stamp ${t.stamp}`);
    stamps.set(t.stamp, action);
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
