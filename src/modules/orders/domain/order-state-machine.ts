import { ORDER_STATUSES, OrderStatus } from './order-status';

/**
 * The order state machine as one executable table (Vendure-style): each action names the states it
 * leaves, the state it enters, who may run it, its guards (functions over facts of the order, each with
 * the error it fails with), its effects by the state left, the time stamp it writes and the request
 * fields it stores. `planTransition` is the one definition of what running a row does, for a single order
 * and for a batch; the actions service runs it, the HTTP layer derives endpoint descriptions and
 * docs/order-state-machine.md from the table, and `assertValidStateMachine()` checks it at boot.
 * A row's `stamp` declares an order field of its own (domain/order-fields.ts): an optional time stamp in the
 * column of that name in snake case, served after `updatedAt` in the rows' order.
 * Adding an action: a row here, an effect handler if it has a new effect, one route, and a migration for
 * its time stamp's column.
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

/** The request fields of actions; a row maps each it takes to the order field it sets. */
export interface ActionParams {
  reason?: string;
  trackingNumber?: string;
  carrier?: string;
}

export interface Transition {
  from: readonly OrderStatus[];
  to: OrderStatus;
  permission: ActionPermission;
  guards: readonly TransitionGuard[];
  /** Effects keyed by the state the order leaves (cancel releases stock only when it was reserved). */
  effects: Partial<Record<OrderStatus, readonly TransitionEffect[]>>;
  /** The order's time stamp the action writes, `<something>At`: a field of its own (see above). */
  stamp: `${string}At`;
  /** Request fields of the action and the order's optional text field each sets (domain/order-fields.ts). */
  params: Partial<Record<keyof ActionParams, string>>;
}

/** The rows, in the order their time stamps are served in. */
const TRANSITION_ROWS = {
  confirm: {
    from: ['CREATED'],
    to: 'CONFIRMED',
    permission: 'OWNER_OR_ADMIN',
    guards: ['HAS_ITEMS'],
    effects: { CREATED: ['RESERVE_STOCK'] },
    stamp: 'confirmedAt',
    params: {},
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
  cancel: {
    from: ['CREATED', 'CONFIRMED'],
    to: 'CANCELLED',
    permission: 'OWNER_OR_ADMIN',
    guards: [],
    effects: { CONFIRMED: ['RELEASE_STOCK'] },
    stamp: 'cancelledAt',
    params: { reason: 'cancellationReason' },
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
} as const satisfies Record<OrderAction, Transition>;

export const ORDER_TRANSITIONS: Readonly<Record<OrderAction, Transition>> = TRANSITION_ROWS;

/** The time stamps the actions write, one per row. */
export type OrderTimestampField = (typeof TRANSITION_ROWS)[OrderAction]['stamp'];

/** The order's text fields an action's request may set. */
export type ActionTextField = {
  [A in OrderAction]: (typeof TRANSITION_ROWS)[A]['params'][keyof (typeof TRANSITION_ROWS)[A]['params']];
}[OrderAction];

/** States in which an edit is allowed: PUT and items only while CREATED, PATCH also once CONFIRMED. */
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

/** The fields a transition writes: the new status, and the request fields it keeps. */
export type TransitionFields = { status: OrderStatus } & Partial<Record<ActionTextField, string | null>>;

/** The field changes of running `transition` with `params`: the new status and the request fields it keeps. */
export function transitionChanges(transition: Transition, params: ActionParams): TransitionFields {
  const changes: Record<string, string | null> = { status: transition.to };
  for (const [param, field] of Object.entries(transition.params) as Array<[keyof ActionParams, string]>) {
    changes[field] = params[param] ?? null;
  }
  return changes as TransitionFields;
}

/** Who runs an action: an admin, or another caller (an owner, once the order is found visible to them). */
export interface ActionCaller {
  admin: boolean;
}

/** What running an action on an order does: its effects, in order, and what is saved. */
export interface TransitionPlan {
  effects: readonly TransitionEffect[];
  fields: TransitionFields;
  stamp: OrderTimestampField;
}

/**
 * What running `transition` with `params` does to an order in `status` with `facts`, for `caller`: refused
 * with the error of the first rule it breaks (its permission, then its guards, in the row's order), or the
 * effects of the state left and the changes to save (the new status, the request fields it keeps, its time
 * stamp). The one definition of an action, for a single order and for a batch; the state itself is checked
 * with every change of an order (`isAllowed`).
 */
export function planTransition(
  transition: Transition,
  caller: ActionCaller,
  order: { status: OrderStatus; facts: GuardFacts },
  params: ActionParams,
): { refusedWith: 'ACCESS_DENIED' | GuardDefinition['error'] } | TransitionPlan {
  if (transition.permission === 'ADMIN' && !caller.admin) return { refusedWith: 'ACCESS_DENIED' };
  const guard = failedGuard(transition, order.facts);
  if (guard) return { refusedWith: GUARDS[guard].error };
  return {
    effects: effectsOf(transition, order.status),
    fields: transitionChanges(transition, params),
    // Every row's stamp is one of OrderTimestampField, which the rows define.
    stamp: transition.stamp as OrderTimestampField,
  };
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
 * that goes nowhere, one time stamp per action, named like a field (`confirmedAt`).
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
    if (!/^[a-z][A-Za-z]*At$/.test(t.stamp)) problems.push(`${action} stamps ${t.stamp}, not a field name`);
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
