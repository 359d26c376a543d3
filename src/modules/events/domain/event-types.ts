import {
  ORDER_TRANSITIONS,
  type OrderAction,
  type OrderEdit,
  type OrderOperation,
} from '../../orders/domain/order-state-machine';

/**
 * The event types, declared once: webhook endpoints subscribe to these names and the feed filters by them.
 * An order action records the event named after the state it leads to, so a new row of the state table
 * brings its event type with it.
 */
type ActionEventType = `ORDER_${(typeof ORDER_TRANSITIONS)[OrderAction]['to']}`;

const ACTION_EVENT_TYPES = Object.values(ORDER_TRANSITIONS).map(
  (transition) => `ORDER_${transition.to}` as ActionEventType,
);

export const ORDER_EVENT_TYPES = [
  'ORDER_CREATED',
  'ORDER_UPDATED',
  ...ACTION_EVENT_TYPES,
  'ORDER_DELETED',
] as const satisfies readonly string[];

export const TASK_EVENT_TYPES = ['TASK_COMPLETED', 'TASK_FAILED', 'TASK_CANCELLED'] as const;

export type OrderEventType = 'ORDER_CREATED' | 'ORDER_UPDATED' | ActionEventType | 'ORDER_DELETED';
export type TaskEventType = (typeof TASK_EVENT_TYPES)[number];
export type EventType = OrderEventType | TaskEventType;

export const EVENT_TYPES: readonly EventType[] = [...ORDER_EVENT_TYPES, ...TASK_EVENT_TYPES];

/** The event an order action records. */
export function actionEventType(action: OrderAction): ActionEventType {
  return `ORDER_${ORDER_TRANSITIONS[action].to}` as ActionEventType;
}

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * The event each operation on an order records: an action the event of the state it leads to, an edit of
 * its fields or lines ORDER_UPDATED, a delete ORDER_DELETED. A total map: a new operation does not compile
 * until it names its event.
 */
const EDIT_EVENT_TYPES: Readonly<Record<OrderEdit, OrderEventType>> = {
  replace: 'ORDER_UPDATED',
  patch: 'ORDER_UPDATED',
  changeItems: 'ORDER_UPDATED',
  delete: 'ORDER_DELETED',
};

export function operationEventType(operation: OrderOperation): OrderEventType {
  return isOrderAction(operation) ? actionEventType(operation) : EDIT_EVENT_TYPES[operation];
}

function isOrderAction(operation: OrderOperation): operation is OrderAction {
  return Object.hasOwn(ORDER_TRANSITIONS, operation);
}

export function isOrderEventType(type: EventType): type is OrderEventType {
  return (ORDER_EVENT_TYPES as readonly string[]).includes(type);
}
