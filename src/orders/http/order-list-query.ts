import { AppException, ViolationInput } from '../../problem/app-exception';
import { DEFAULT_PAGE_SIZE } from '../../paging/offset-page';
import {
  DEFAULT_SORT,
  OffsetPaging,
  OrderFilter,
  OrderListCriteria,
  SORT_FIELDS,
  SortField,
  SortKey,
} from '../domain/order-list-criteria';
import { ListOrdersQuery, SearchOrdersRequest } from './dto/order-list.dto';

const SORT_PARAMETER = /^(\w+),(asc|desc)$/;

/**
 * The GET list's query string as criteria: `sort=<field>,<dir>` values parsed, ranges checked, `cursor`
 * selecting cursor paging (and excluding `page`). Every problem of the query in one 400.
 */
export function listCriteria(query: ListOrdersQuery): OrderListCriteria {
  const violations: ViolationInput[] = [];
  const sort = parseSort(query.sort, violations);
  const filter: OrderFilter = {
    statuses: query.status,
    customerIds: query.customerId ? [query.customerId.toLowerCase()] : undefined,
    dateFrom: query.dateFrom,
    dateTo: query.dateTo,
    amountFrom: query.amountFrom,
    amountTo: query.amountTo,
    q: query.q,
  };
  checkRanges(filter, { dateFrom: 'dateFrom', amountFrom: 'amountFrom' }, violations);
  if (query.cursor !== undefined && query.page !== undefined) {
    violations.push({ field: 'cursor', code: 'INVALID_QUERY' });
  }
  if (violations.length > 0) throw AppException.validation(violations);
  const size = query.size ?? DEFAULT_PAGE_SIZE;
  return {
    filter,
    sort,
    paging:
      query.cursor !== undefined
        ? { kind: 'cursor', cursor: query.cursor, size }
        : { kind: 'offset', page: query.page ?? 1, size },
  };
}

/** The POST /orders/search body as criteria (always an offset page). */
export function searchCriteria(body: SearchOrdersRequest): OrderListCriteria & { paging: OffsetPaging } {
  const violations: ViolationInput[] = [];
  const sort: SortKey[] = body.sort?.length
    ? body.sort.map((s) => ({ field: s.field, direction: s.direction === 'ASC' ? 'asc' : 'desc' }))
    : [...DEFAULT_SORT];
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
  checkRanges(filter, { dateFrom: 'dateRange.from', amountFrom: 'totalAmount.from' }, violations);
  if (violations.length > 0) throw AppException.validation(violations);
  return {
    filter,
    sort,
    paging: { kind: 'offset', page: body.page ?? 1, size: body.size ?? DEFAULT_PAGE_SIZE },
  };
}

function parseSort(values: string[] | undefined, violations: ViolationInput[]): SortKey[] {
  if (!values?.length) return [...DEFAULT_SORT];
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

function checkRanges(
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
