import { ORDER_STATUSES, OrderStatus } from './order-status';
import {
  assertValidStateMachine,
  failedGuard,
  isAllowed,
  ORDER_TRANSITIONS,
  OrderOperation,
} from './order-state-machine';

/** Every (state, operation) pair, written out: the expected table, independent of the implementation. */
const EXPECTED: Record<OrderStatus, Partial<Record<OrderOperation, OrderStatus | 'allowed'>>> = {
  CREATED: {
    confirm: 'CONFIRMED',
    cancel: 'CANCELLED',
    replace: 'allowed',
    patch: 'allowed',
    delete: 'allowed',
    changeItems: 'allowed',
  },
  CONFIRMED: { cancel: 'CANCELLED', ship: 'SHIPPED', patch: 'allowed' },
  SHIPPED: { deliver: 'DELIVERED', refund: 'REFUNDED' },
  DELIVERED: { refund: 'REFUNDED' },
  CANCELLED: { delete: 'allowed' },
  REFUNDED: {},
};
const OPERATIONS: OrderOperation[] = [
  'confirm',
  'cancel',
  'ship',
  'deliver',
  'refund',
  'replace',
  'patch',
  'delete',
  'changeItems',
];

describe('order state machine', () => {
  const pairs = ORDER_STATUSES.flatMap((status) => OPERATIONS.map((op) => [status, op] as const));

  it.each(pairs)('%s × %s', (status, operation) => {
    const expected = EXPECTED[status][operation];
    expect(isAllowed(operation, status)).toBe(expected !== undefined);
    if (expected && expected !== 'allowed') {
      expect(ORDER_TRANSITIONS[operation as keyof typeof ORDER_TRANSITIONS].to).toBe(expected);
    }
  });

  it('is valid at boot', () => {
    expect(() => assertValidStateMachine()).not.toThrow();
  });

  it('guards confirm on items and ship on a delivery address', () => {
    expect(failedGuard(ORDER_TRANSITIONS.confirm, { itemCount: 0, hasDeliveryAddress: true })).toBe(
      'HAS_ITEMS',
    );
    expect(
      failedGuard(ORDER_TRANSITIONS.confirm, { itemCount: 1, hasDeliveryAddress: false }),
    ).toBeUndefined();
    expect(failedGuard(ORDER_TRANSITIONS.ship, { itemCount: 1, hasDeliveryAddress: false })).toBe(
      'HAS_DELIVERY_ADDRESS',
    );
    expect(failedGuard(ORDER_TRANSITIONS.ship, { itemCount: 1, hasDeliveryAddress: true })).toBeUndefined();
  });

  it('reserves stock on confirm and releases it only when cancelling a confirmed order', () => {
    expect(ORDER_TRANSITIONS.confirm.effects.CREATED).toEqual(['RESERVE_STOCK']);
    expect(ORDER_TRANSITIONS.cancel.effects.CONFIRMED).toEqual(['RELEASE_STOCK']);
    expect(ORDER_TRANSITIONS.cancel.effects.CREATED).toBeUndefined();
  });
});
