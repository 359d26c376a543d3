/** The states of an order; REFUNDED follows SHIPPED or DELIVERED (docs/order-state-machine.md). */
export const ORDER_STATUSES = [
  'CREATED',
  'CONFIRMED',
  'SHIPPED',
  'DELIVERED',
  'CANCELLED',
  'REFUNDED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
