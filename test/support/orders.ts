import type { LightMyRequestResponse } from 'fastify';
import { ApiClient, bodyWithStatus, CallOptions, withIdempotencyKey } from './http-client';

export const ORDERS = '/api/v1/orders';

export interface OrderLine {
  productId: string;
  quantity: number;
}

export interface DeliveryAddress {
  streetName: string;
  zipCode: string;
}

/** The body of `POST /api/v1/orders`; every field may be left out. */
export interface OrderRequest {
  customerId?: string;
  items?: OrderLine[];
  deliveryAddress?: DeliveryAddress;
  note?: string;
}

export interface OrderItem extends OrderLine {
  itemId: string;
  productName: string;
  unitPrice: number;
}

/** An order as the API answers it (members without a value are absent). */
export interface Order {
  orderId: string;
  customerId: string;
  status: string;
  totalAmount: number;
  currency: string;
  createdAt: string;
  items: OrderItem[];
  deliveryAddress?: DeliveryAddress;
  note?: string;
  [member: string]: unknown;
}

/**
 * `POST /api/v1/orders` with a fresh `Idempotency-Key` (merged with `options.headers`), whatever it
 * answers: for tests of the create itself. `body` may be anything, invalid bodies included.
 */
export function postOrder(
  client: ApiClient,
  body: unknown = {},
  options: Omit<CallOptions, 'body'> = {},
): Promise<LightMyRequestResponse> {
  return client('POST', ORDERS, {
    ...options,
    body,
    headers: withIdempotencyKey(undefined, options.headers),
  });
}

/** Creates an order as the caller of `client` (an empty one unless `body` says otherwise); fails unless 201. */
export async function createOrder(client: ApiClient, body: OrderRequest = {}): Promise<Order> {
  return bodyWithStatus<Order>(await postOrder(client, body), 201, `POST ${ORDERS}`);
}
