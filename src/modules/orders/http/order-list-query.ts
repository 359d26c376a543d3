import { DEFAULT_PAGE_SIZE } from '../../../platform/paging/offset-page';
import {
  DEFAULT_SORT,
  OffsetPaging,
  OrderFilter,
  OrderListCriteria,
  SortField,
  SortKey,
} from '../domain/order-list-criteria';
import { ListOrdersQuery, SearchOrdersRequest } from './dto/order-list.dto';

/**
 * The GET list's query string as criteria: `sort=<field>,<dir>` values parsed, `cursor` selecting cursor
 * paging. The DTO has already been validated, cross-field rules included (ranges, `cursor` with `page`,
 * sort keys), so this only maps.
 */
export function listCriteria(query: ListOrdersQuery): OrderListCriteria {
  const filter: OrderFilter = {
    statuses: query.status,
    customerIds: query.customerId ? [query.customerId.toLowerCase()] : undefined,
    dateFrom: query.dateFrom,
    dateTo: query.dateTo,
    amountFrom: query.amountFrom,
    amountTo: query.amountTo,
    q: query.q,
  };
  const size = query.size ?? DEFAULT_PAGE_SIZE;
  return {
    filter,
    sort: query.sort?.length ? query.sort.map(sortKey) : [...DEFAULT_SORT],
    paging:
      query.cursor !== undefined
        ? { kind: 'cursor', cursor: query.cursor, size }
        : { kind: 'offset', page: query.page ?? 1, size },
  };
}

/** The POST /orders/search body as criteria (always an offset page). */
export function searchCriteria(body: SearchOrdersRequest): OrderListCriteria & { paging: OffsetPaging } {
  const sort: SortKey[] = body.sort?.length
    ? body.sort.map((s) => ({ field: s.field, direction: s.direction === 'ASC' ? 'asc' : 'desc' }))
    : [...DEFAULT_SORT];
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
  return {
    filter,
    sort,
    paging: { kind: 'offset', page: body.page ?? 1, size: body.size ?? DEFAULT_PAGE_SIZE },
  };
}

/** `createdAt,desc` → a sort key (the DTO's `@SortKeys` checked the form and the field). */
function sortKey(value: string): SortKey {
  const [field, direction] = value.split(',');
  return { field: field as SortField, direction: direction as 'asc' | 'desc' };
}
