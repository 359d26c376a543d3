import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { type Caller, isAdmin } from '../../auth/caller';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { CursorPage } from '../../paging/cursor-page';
import { DEFAULT_PAGE_SIZE, OffsetPage, offsetPage } from '../../paging/offset-page';
import { AppException, ViolationInput } from '../../problem/app-exception';
import { OrderItemEntity } from '../order-item.entity';
import { OrderRecord } from '../order.view';
import { OrderEntity } from '../order.entity';
import { CursorCodec } from './order-cursor';
import { ListOrdersQuery, SearchOrdersRequest } from './order-list.dto';
import {
  DEFAULT_SORT,
  keyCount,
  keysetCondition,
  keySelect,
  OrderFilter,
  orderBy,
  OrderScope,
  SORT_FIELDS,
  SortField,
  SortKey,
  SqlParameters,
  fromWhere,
  querySource,
} from './order-query';

export type OrderListPage =
  ({ kind: 'offset' } & OffsetPage<OrderRecord>) | ({ kind: 'cursor' } & CursorPage<OrderRecord>);

const SORT_PARAMETER = /^(\w+),(asc|desc)$/;

/**
 * Order lists: the GET list (offset or cursor paging) and POST /orders/search share the filter, sort,
 * ownership and counting rules here. Exact totals for the common admin shapes (all, or by status) come
 * from the trigger-kept `order_status_counts`, never from a table scan.
 */
@Injectable()
export class OrdersQueryService {
  private readonly cursors: CursorCodec;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cursors = new CursorCodec(config.cursor.secret);
  }

  async list(caller: Caller, query: ListOrdersQuery): Promise<OrderListPage> {
    const violations: ViolationInput[] = [];
    const sort = this.parseSort(query.sort, violations);
    const filter: OrderFilter = {
      statuses: query.status,
      customerIds: query.customerId ? [query.customerId.toLowerCase()] : undefined,
      dateFrom: query.dateFrom,
      dateTo: query.dateTo,
      amountFrom: query.amountFrom,
      amountTo: query.amountTo,
      q: query.q,
    };
    this.checkRanges(filter, { dateFrom: 'dateFrom', amountFrom: 'amountFrom' }, violations);
    if (query.cursor !== undefined && query.page !== undefined) {
      violations.push({ field: 'cursor', code: 'INVALID_QUERY' });
    }
    if (violations.length > 0) throw AppException.validation(violations);
    const scope = this.scopeOf(caller, filter);
    const size = query.size ?? DEFAULT_PAGE_SIZE;
    if (query.cursor !== undefined) {
      return { kind: 'cursor', ...(await this.cursorPage(filter, scope, sort, size, query.cursor)) };
    }
    return {
      kind: 'offset',
      ...(await this.offsetPage(filter, scope, sort, { page: query.page ?? 1, size })),
    };
  }

  async search(caller: Caller, body: SearchOrdersRequest): Promise<OffsetPage<OrderRecord>> {
    const violations: ViolationInput[] = [];
    const sort: SortKey[] = body.sort?.length
      ? body.sort.map((s) => ({ field: s.field, direction: s.direction === 'ASC' ? 'asc' : 'desc' }))
      : DEFAULT_SORT;
    if (new Set(sort.map((s) => s.field)).size !== sort.length)
      violations.push({ field: 'sort', code: 'INVALID_QUERY' });
    const filter: OrderFilter = {
      statuses: body.statuses,
      customerIds: body.customerIds?.map((id) => id.toLowerCase()),
      dateFrom: body.dateRange?.from,
      dateTo: body.dateRange?.to,
      amountFrom: body.totalAmount?.from,
      amountTo: body.totalAmount?.to,
      q: body.q,
      regionIds: body.customer?.regionIds,
      segment: body.customer?.segment,
    };
    this.checkRanges(filter, { dateFrom: 'dateRange.from', amountFrom: 'totalAmount.from' }, violations);
    if (violations.length > 0) throw AppException.validation(violations);
    const scope = this.scopeOf(caller, filter);
    return this.offsetPage(filter, scope, sort, {
      page: body.page ?? 1,
      size: body.size ?? DEFAULT_PAGE_SIZE,
    });
  }

  private async offsetPage(
    filter: OrderFilter,
    scope: OrderScope,
    sort: SortKey[],
    paging: { page: number; size: number },
  ): Promise<OffsetPage<OrderRecord>> {
    const p = new SqlParameters();
    const sql = `SELECT o.order_id ${fromWhere(querySource(filter, scope, p))}
      ORDER BY ${orderBy(sort)} LIMIT ${p.add(paging.size)} OFFSET ${p.add((paging.page - 1) * paging.size)}`;
    const [rows, total] = await Promise.all([
      this.dataSource.query(sql, p.values) as Promise<Array<{ order_id: string }>>,
      this.count(filter, scope),
    ]);
    return offsetPage(await this.records(rows.map((r) => r.order_id)), total, paging);
  }

  private async cursorPage(
    filter: OrderFilter,
    scope: OrderScope,
    sort: SortKey[],
    size: number,
    token: string,
  ): Promise<CursorPage<OrderRecord>> {
    const binding = CursorCodec.binding({ filter, scope, sort });
    const position = token === '' ? undefined : this.cursors.decode(token, binding, keyCount(sort));
    const backwards = position?.direction === 'prev';
    const p = new SqlParameters();
    const source = querySource(filter, scope, p);
    if (position) source.where.push(keysetCondition(sort, position.values, !backwards, p));
    const sql = `SELECT o.order_id, ${keySelect(sort)} ${fromWhere(source)}
      ORDER BY ${orderBy(sort, backwards)} LIMIT ${p.add(size + 1)}`;
    const fetched: Array<Record<string, string>> = await this.dataSource.query(sql, p.values);
    const more = fetched.length > size;
    const rows = fetched.slice(0, size);
    if (backwards) rows.reverse();
    const keysOf = (row: Record<string, string>) =>
      Array.from({ length: keyCount(sort) }, (_, i) => row[`k${i}`]);

    // Travelling forward there is more ahead when we over-fetched, and something behind once we moved;
    // travelling backward the other way round.
    const hasNext = backwards ? true : more;
    const hasPrev = backwards ? more : position !== undefined;
    const page: CursorPage<OrderRecord> = {
      content: await this.records(rows.map((r) => r.order_id)),
      size,
      hasNext: hasNext && rows.length > 0,
      hasPrev: hasPrev && rows.length > 0,
    };
    if (page.hasNext)
      page.nextCursor = this.cursors.encode(
        { direction: 'next', values: keysOf(rows[rows.length - 1]) },
        binding,
      );
    if (page.hasPrev)
      page.prevCursor = this.cursors.encode({ direction: 'prev', values: keysOf(rows[0]) }, binding);
    return page;
  }

  /** Exact count; the admin's "everything" and "by status" shapes are read from the counters. */
  private async count(filter: OrderFilter, scope: OrderScope): Promise<number> {
    const onlyStatuses = Object.entries(filter).every(
      ([key, value]) => key === 'statuses' || value === undefined,
    );
    if (!scope.customerId && onlyStatuses) {
      const [{ total }] = (await this.dataSource.query(
        `SELECT COALESCE(sum(n), 0)::bigint AS total FROM order_status_counts
         ${filter.statuses?.length ? 'WHERE status = ANY($1::text[])' : ''}`,
        filter.statuses?.length ? [filter.statuses] : [],
      )) as Array<{ total: string }>;
      return Number(total);
    }
    const p = new SqlParameters();
    const [{ total }] = (await this.dataSource.query(
      `SELECT count(*)::bigint AS total ${fromWhere(querySource(filter, scope, p))}`,
      p.values,
    )) as Array<{ total: string }>;
    return Number(total);
  }

  /** Loads orders and their items (two queries) in the order of `ids`. */
  private async records(ids: string[]): Promise<OrderRecord[]> {
    if (ids.length === 0) return [];
    const manager = this.dataSource.manager;
    const [orders, items] = await Promise.all([
      manager.find(OrderEntity, { where: { orderId: In(ids) } }),
      manager.find(OrderItemEntity, {
        where: { orderId: In(ids) },
        order: { createdAt: 'ASC', itemId: 'ASC' },
      }),
    ]);
    const byId = new Map(orders.map((o) => [o.orderId, o]));
    const itemsByOrder = new Map<string, OrderItemEntity[]>();
    for (const item of items)
      itemsByOrder.set(item.orderId, [...(itemsByOrder.get(item.orderId) ?? []), item]);
    return ids.flatMap((id) => {
      const order = byId.get(id);
      return order ? [{ order, items: itemsByOrder.get(id) ?? [] }] : [];
    });
  }

  /** A customer sees only their own orders; naming someone else's customerId is 403. */
  private scopeOf(caller: Caller, filter: OrderFilter): OrderScope {
    if (isAdmin(caller)) return {};
    if (filter.customerIds?.some((id) => id !== caller.userId)) throw new AppException('ACCESS_DENIED');
    return { customerId: caller.userId };
  }

  private parseSort(values: string[] | undefined, violations: ViolationInput[]): SortKey[] {
    if (!values?.length) return DEFAULT_SORT;
    const sort: SortKey[] = [];
    values.forEach((value, index) => {
      const match = SORT_PARAMETER.exec(value);
      const field = match?.[1];
      if (
        !match ||
        !(SORT_FIELDS as readonly string[]).includes(field as string) ||
        sort.some((s) => s.field === field)
      ) {
        violations.push({ field: values.length > 1 ? `sort[${index}]` : 'sort', code: 'INVALID_QUERY' });
        return;
      }
      sort.push({ field: field as SortField, direction: match[2] as 'asc' | 'desc' });
    });
    return sort;
  }

  private checkRanges(
    filter: OrderFilter,
    fields: { dateFrom: string; amountFrom: string },
    violations: ViolationInput[],
  ): void {
    if (filter.dateFrom && filter.dateTo && filter.dateFrom > filter.dateTo) {
      violations.push({ field: fields.dateFrom, code: 'INVALID_RANGE' });
    }
    if (
      filter.amountFrom !== undefined &&
      filter.amountTo !== undefined &&
      filter.amountFrom > filter.amountTo
    ) {
      violations.push({ field: fields.amountFrom, code: 'INVALID_RANGE' });
    }
  }
}
