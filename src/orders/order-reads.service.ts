import { Inject, Injectable } from '@nestjs/common';
import { type Caller, isAdmin } from '../auth/caller';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CursorCodec } from '../paging/cursor-codec';
import { CursorPage } from '../paging/cursor-page';
import { OffsetPage, offsetOf, offsetPage } from '../paging/offset-page';
import { AppException } from '../problem/app-exception';
import type { Order, OrderLine } from './domain/order';
import type { CreationKey, CreationRange, OrderAggregateChunk } from './domain/order-aggregates';
import {
  keyCount,
  CursorPaging,
  OffsetPaging,
  OrderFilter,
  OrderListCriteria,
  OrderScope,
  SortKey,
} from './domain/order-list-criteria';
import { assertOrderVisible } from './order-access';
import { OrdersRepository } from './persistence/orders.repository';

export type OffsetOrderPage = { kind: 'offset' } & OffsetPage<Order>;
export type OrderListPage = OffsetOrderPage | ({ kind: 'cursor' } & CursorPage<Order>);

/**
 * Reading orders: one order, the `latest` alias, lists (offset or keyset cursor paging, one set of
 * filter, sort and ownership rules for GET /orders and POST /orders/search) and an order's items.
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

  async get(caller: Caller, orderId: string): Promise<Order> {
    const order = await this.orders.read(orderId);
    if (!order) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    assertOrderVisible(caller, order);
    return order;
  }

  /** The `latest` alias: the caller's most recent order. */
  async latest(caller: Caller): Promise<Order> {
    const order = await this.orders.readLatest(caller.userId);
    if (!order) throw new AppException('ORDER_NOT_FOUND', { args: { orderId: 'latest' } });
    return order;
  }

  list(caller: Caller, criteria: OrderListCriteria & { paging: OffsetPaging }): Promise<OffsetOrderPage>;
  list(
    caller: Caller,
    criteria: OrderListCriteria & { paging: CursorPaging },
  ): Promise<{ kind: 'cursor' } & CursorPage<Order>>;
  list(caller: Caller, criteria: OrderListCriteria): Promise<OrderListPage>;
  async list(caller: Caller, { filter, sort, paging }: OrderListCriteria): Promise<OrderListPage> {
    const scope = this.scopeOf(caller, filter);
    if (paging.kind === 'cursor') {
      return { kind: 'cursor', ...(await this.cursorPage(filter, scope, sort, paging.size, paging.cursor)) };
    }
    const rows = await this.orders.page(
      filter,
      scope,
      sort,
      { limit: paging.size, offset: offsetOf(paging) },
      { total: true },
    );
    return { kind: 'offset', ...offsetPage(rows.orders, rows.total ?? 0, paging) };
  }

  /**
   * An offset page of a list (same rules as `list`) with its orders already in the v1 API's JSON, as the
   * text of an array rendered by PostgreSQL (OrdersRepository.renderedPage): the v1 list's path, which
   * sends the text as it comes instead of parsing, mapping and serializing twenty orders.
   */
  async renderedV1Page(
    caller: Caller,
    { filter, sort, paging }: OrderListCriteria & { paging: OffsetPaging },
  ): Promise<{ contentJson: string; totalElements: number }> {
    const scope = this.scopeOf(caller, filter);
    const { content, total } = await this.orders.renderedPage(filter, scope, sort, {
      limit: paging.size,
      offset: offsetOf(paging),
    });
    return { contentJson: content, totalElements: total };
  }

  async listItems(
    caller: Caller,
    orderId: string,
    paging: { page: number; size: number },
  ): Promise<OffsetPage<OrderLine>> {
    await this.get(caller, orderId);
    const { lines, total } = await this.orders.linesPage(orderId, {
      limit: paging.size,
      offset: offsetOf(paging),
    });
    return offsetPage(lines, total, paging);
  }

  async getItem(caller: Caller, orderId: string, itemId: string): Promise<OrderLine> {
    const item = (await this.get(caller, orderId)).items.find((i) => i.itemId === itemId);
    if (!item) throw new AppException('ITEM_NOT_FOUND', { args: { itemId } });
    return item;
  }

  /**
   * A customer's orders in creation order, a chunk at a time (exports walk them without holding them all):
   * pass the returned `last` back as `after` until a chunk comes back shorter than `limit`.
   */
  customerOrdersChunk(
    customerId: string,
    after: CreationKey | undefined,
    limit: number,
  ): Promise<{ orders: Order[]; last?: CreationKey }> {
    return this.orders.readCustomerChunk(customerId, after, limit);
  }

  countCustomerOrders(customerId: string): Promise<number> {
    return this.orders.countCustomerOrders(customerId);
  }

  /** Sums over the next chunk of orders created in `range` (reports aggregate a chunk at a time). */
  aggregateChunk(
    range: CreationRange,
    after: CreationKey | undefined,
    limit: number,
  ): Promise<OrderAggregateChunk> {
    return this.orders.aggregateChunk(range, after, limit);
  }

  countCreatedIn(range: CreationRange): Promise<number> {
    return this.orders.countCreatedIn(range);
  }

  private async cursorPage(
    filter: OrderFilter,
    scope: OrderScope,
    sort: readonly SortKey[],
    size: number,
    token: string,
  ): Promise<CursorPage<Order>> {
    const binding = CursorCodec.binding({ filter, scope, sort });
    const position = token === '' ? undefined : this.cursors.decode(token, binding, keyCount(sort));
    const backwards = position?.direction === 'prev';
    const fetched = await this.orders.page(filter, scope, sort, {
      limit: size + 1,
      after: position ? { values: position.values, forward: !backwards } : undefined,
      reverse: backwards,
    });
    const more = fetched.orders.length > size;
    const orders = fetched.orders.slice(0, size);
    const keys = fetched.keys.slice(0, size);
    if (backwards) {
      orders.reverse();
      keys.reverse();
    }
    // Travelling forward there is more ahead when we over-fetched, and something behind once we moved;
    // travelling backward the other way round.
    const hasNext = (backwards ? true : more) && orders.length > 0;
    const hasPrev = (backwards ? more : position !== undefined) && orders.length > 0;
    const page: CursorPage<Order> = { content: orders, size, hasNext, hasPrev };
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
