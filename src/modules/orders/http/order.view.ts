import type { FastifyReply } from 'fastify';
import { entityTag } from '../../../platform/http/conditional-requests';
import { sendJsonText } from '../../../platform/http/json-output';
import { cursorPageJson } from '../../../platform/paging/cursor-page';
import { offsetPageJson } from '../../../platform/paging/offset-page';
import type { OrderBody } from '../domain/order';
import type { OrderListPage } from '../order-reads.service';

/**
 * Orders go out as PostgreSQL rendered their bodies (JSON text already in output form, from the
 * declaration of their fields), written into the answer as they come: nothing is parsed, built or
 * serialized again here.
 */

/** Orders are per caller and change often: clients revalidate with If-None-Match. */
export const ORDER_CACHE = 'private, no-cache';

/** The ETag of the current version of an order. */
export function orderEtag(order: Pick<OrderBody, 'orderId' | 'version'>): string {
  return entityTag(order.orderId, order.version);
}

/**
 * One order as the answer: its body, with its ETag and Cache-Control. v1 and v2 send the same tag: it
 * names the order's version, which both show (so a v2 tag is a valid `If-Match` on v1 writes).
 */
export function sendOrder(reply: FastifyReply, order: OrderBody): Buffer {
  void reply.header('etag', orderEtag(order)).header('cache-control', ORDER_CACHE);
  return sendJsonText(reply, [order.json]);
}

/** A page of orders as the answer: the page's fields around its orders' bodies. */
export function sendOrderPage(reply: FastifyReply, page: OrderListPage): Buffer {
  if (page.kind === 'offset') {
    return sendJsonText(reply, offsetPageJson(page.contentJson, page.totalElements, page));
  }
  const { kind: _kind, contentJson, ...fields } = page;
  return sendJsonText(reply, cursorPageJson(contentJson, fields));
}
