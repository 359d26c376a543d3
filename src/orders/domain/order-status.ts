/** OrderStatus of the contract plus REFUNDED (DECISIONS "Orders"). */
export const ORDER_STATUSES = [
  'CREATED',
  'CONFIRMED',
  'SHIPPED',
  'DELIVERED',
  'CANCELLED',
  'REFUNDED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
