import { Inject, Injectable } from '@nestjs/common';
import { type Caller, isAdmin } from '../../platform/auth/caller';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import { CursorCodec } from '../../platform/paging/cursor-codec';
import { CursorPage } from '../../platform/paging/cursor-page';
import { offsetOf } from '../../platform/paging/offset-page';
import { AppException } from '../../platform/problem/app-exception';
import type { OrderBody } from './domain/order';
import type { OrderBodyVersion } from './domain/order-fields';
import {
  CursorPaging,
  keyCount,
  OrderFilter,
  OrderListCriteria,
  OrderScope,
  SortKey,
} from './domain/order-list-criteria';
import type { OrderStatus } from './domain/order-status';
import { assertOrderVisible } from './order-access';
import { OrdersRepository } from './persistence/orders.repository';

/** An offset page of a list: its orders as the text of a JSON array, and the page's fields. */
export interface OffsetOrderPage {
  kind: 'offset';
  contentJson: string;
  totalElements: number;
  page: number;
  size: number;
}

/** A cursor page of a list: its orders as the text of a JSON array, and the page's fields. */
export type CursorOrderPage = { kind: 'cursor'; contentJson: string } & Omit<CursorPage<never>, 'content'>;

export type OrderListPage = OffsetOrderPage | CursorOrderPage;

/**
 * Reading orders as the API serves them: one order, the `latest` alias, lists (offset or keyset cursor
 * paging, one set of filter, sort and ownership rules for GET /orders and POST /orders/search) and an
 * order's items. Orders come as their bodies' JSON text in the API version asked for, rendered by
 * PostgreSQL (OrderBody): nothing is parsed or built again on the way out.
 */
@Injectable()
export class OrderReadsService {
  private readonly cursors: CursorCodec;

  constructor(
    private readonly orders: OrdersRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cursors = new CursorCodec(config.cursor.secret);
  }

  async get(caller: Caller, orderId: string, version: OrderBodyVersion): Promise<OrderBody> {
    const order = await this.orders.readBody(orderId, version);
    if (!order) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    assertOrderVisible(caller, order);
    return order;
  }

  /** That the order exists and the caller may see it (what another module keeps for an order needs it). */
  async assertVisible(caller: Caller, orderId: string): Promise<void> {
    const customerId = await this.orders.readCustomerId(orderId);
    if (customerId === undefined) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    assertOrderVisible(caller, { customerId });
  }

  /** The status of an order (the deprecated status read). */
  async status(caller: Caller, orderId: string): Promise<OrderStatus> {
    const order = await this.orders.read(orderId);
    if (!order) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    assertOrderVisible(caller, order);
    return order.status;
  }

  /** The `latest` alias: the caller's most recent order. */
  async latest(caller: Caller, version: OrderBodyVersion): Promise<OrderBody> {
    const order = await this.orders.readLatestBody(caller.userId, version);
    if (!order) throw new AppException('ORDER_NOT_FOUND', { args: { orderId: 'latest' } });
    return order;
  }

  /** A page of a list, offset or cursor as its criteria's paging says, its orders as `version` serves them. */
  async list(
    caller: Caller,
    { filter, sort, paging }: OrderListCriteria,
    version: OrderBodyVersion,
  ): Promise<OrderListPage> {
    const scope = this.scopeOf(caller, filter);
    if (paging.kind === 'cursor') return this.cursorPage(filter, scope, sort, paging, version);
    const { contentJson, total } = await this.orders.offsetPage(
      filter,
      scope,
      sort,
      { limit: paging.size, offset: offsetOf(paging) },
      version,
    );
    return { kind: 'offset', contentJson, totalElements: total, page: paging.page, size: paging.size };
  }

  /** A page of an order's items as v1 serves them, as the text of a JSON array, and how many it has. */
  async listItems(
    caller: Caller,
    orderId: string,
    paging: { page: number; size: number },
  ): Promise<{ contentJson: string; totalElements: number }> {
    const lines = await this.orders.linesPage(orderId, { limit: paging.size, offset: offsetOf(paging) });
    if (!lines) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    assertOrderVisible(caller, lines);
    return { contentJson: lines.contentJson, totalElements: lines.total };
  }

  /** An item of an order as v1 serves it, JSON text. */
  async getItem(caller: Caller, orderId: string, itemId: string): Promise<string> {
    const found = await this.orders.readLine(orderId, itemId);
    if (!found) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    assertOrderVisible(caller, found);
    if (found.json === null) throw new AppException('ITEM_NOT_FOUND', { args: { itemId } });
    return found.json;
  }

  private async cursorPage(
    filter: OrderFilter,
    scope: OrderScope,
    sort: readonly SortKey[],
    paging: CursorPaging,
    version: OrderBodyVersion,
  ): Promise<CursorOrderPage> {
    const { size } = paging;
    const binding = CursorCodec.binding({ filter, scope, sort });
    const position =
      paging.cursor === '' ? undefined : this.cursors.decode(paging.cursor, binding, keyCount(sort));
    const backwards = position?.direction === 'prev';
    const fetched = await this.orders.keysetPage(
      filter,
      scope,
      sort,
      {
        limit: size + 1,
        after: position ? { values: position.values, forward: !backwards } : undefined,
        reverse: backwards,
      },
      version,
    );
    const more = fetched.bodies.length > size;
    const bodies = fetched.bodies.slice(0, size);
    const keys = fetched.keys.slice(0, size);
    if (backwards) {
      bodies.reverse();
      keys.reverse();
    }
    // Travelling forward there is more ahead when we over-fetched, and something behind once we moved;
    // travelling backward the other way round.
    const hasNext = (backwards ? true : more) && bodies.length > 0;
    const hasPrev = (backwards ? more : position !== undefined) && bodies.length > 0;
    const page: CursorOrderPage = {
      kind: 'cursor',
      contentJson: `[${bodies.join(',')}]`,
      size,
      hasNext,
      hasPrev,
    };
    if (hasNext)
      page.nextCursor = this.cursors.encode({ direction: 'next', values: keys[keys.length - 1] }, binding);
    if (hasPrev) page.prevCursor = this.cursors.encode({ direction: 'prev', values: keys[0] }, binding);
    return page;
  }

  /** A customer sees only their own orders; naming someone else's customerId is 403. */
  private scopeOf(caller: Caller, filter: OrderFilter): OrderScope {
    if (isAdmin(caller)) return {};
    if (filter.customerIds?.some((id) => id !== caller.userId)) throw new AppException('ACCESS_DENIED');
    return { customerId: caller.userId };
  }
}
