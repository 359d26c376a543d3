import type { Type } from '@nestjs/common';
import { CursorPageResponse, OffsetPageResponse } from '../../../../platform/paging/page-response';
import {
  FieldKind,
  listOf,
  nested,
  oneOf,
  patterned,
  ResponseField,
} from '../../../../platform/validation/fields';
import {
  FieldDeclaration,
  fieldsOf,
  ORDER_FIELDS,
  OrderBodyVersion,
  ScalarField,
  servedName,
} from '../../domain/order-fields';
import { ORDER_STATUSES } from '../../domain/order-status';
import { CURRENCY, fieldKindOf } from './order-field-kinds';

/**
 * The response schemas of orders, generated from the declaration of their fields (domain/order-fields.ts),
 * as the bodies PostgreSQL renders from the same declaration: `OrderResponse` (v1) and `OrderV2Response`
 * (v2, money as `MoneyV2`: `total` for `totalAmount`, each line's `unitPrice`), with their lines and
 * objects. A structure whose v2 form differs from v1's is named with `V2` (`OrderItemV2Response`), so the
 * two versions never share a schema that differs; one that does not differ is shared
 * (`DeliveryAddressResponse`).
 */

/** `numeric(12,2)` as text: at most 10 integer digits, exactly 2 decimals. */
const MONEY_AMOUNT = patterned({
  pattern: /^[0-9]{1,10}\.[0-9]{2}$/,
  max: 13,
  format: 'decimal with 2 decimals',
  example: '12.50',
});

/** An amount of money as v2 serves it: decimal text with exactly 2 decimals (never a binary float). */
export class MoneyV2 {
  @ResponseField(MONEY_AMOUNT, { description: 'Decimal amount with exactly 2 decimals, as a string.' })
  amount: string;

  @ResponseField(CURRENCY, { description: 'ISO 4217 currency code.' })
  currency: string;
}

function isScalar(field: FieldDeclaration): field is ScalarField {
  return field.kind !== 'object' && field.kind !== 'lines';
}

/** Whether the v2 form of `fields` differs from v1's: money, or a field v2 names or describes otherwise. */
function differsInV2(fields: Readonly<Record<string, FieldDeclaration>>): boolean {
  return fieldsOf(fields).some(([, field]) =>
    isScalar(field) ? field.kind === 'money' || field.v2 !== undefined : differsInV2(field.members),
  );
}

const classes = new Map<string, Type<unknown>>();

/**
 * The response class `<base>Response` (or `<base>V2Response`, when v2 differs) of `fields` as `version`
 * serves them: one `@ResponseField` per served field, in the declaration's order. One class per name.
 */
export function responseClass(
  base: string,
  fields: Readonly<Record<string, FieldDeclaration>>,
  version: OrderBodyVersion,
): Type<unknown> {
  const name = `${base}${version === 'v2' && differsInV2(fields) ? 'V2' : ''}Response`;
  const known = classes.get(name);
  if (known) return known;
  const Body = class {};
  Object.defineProperty(Body, 'name', { value: name });
  for (const [fieldName, field] of fieldsOf<FieldDeclaration>(fields)) {
    if (isScalar(field) && field.internal) continue;
    const description = isScalar(field)
      ? ((version === 'v2' ? field.v2?.description : undefined) ?? field.description)
      : undefined;
    ResponseField(kindOf(fieldName, field, version), {
      optional: field.kind !== 'lines' && field.optional === true,
      ...(description !== undefined ? { description } : {}),
    })(Body.prototype, servedName(fieldName, field, version));
  }
  classes.set(name, Body);
  return Body;
}

const capitalized = (name: string) => `${name[0].toUpperCase()}${name.slice(1)}`;

/** The kind a field is served as: its own, a nested object or list of one, or v2's money. */
function kindOf(name: string, field: FieldDeclaration, version: OrderBodyVersion): FieldKind {
  switch (field.kind) {
    case 'object':
      return nested(responseClass(capitalized(name), field.members, version));
    case 'lines':
      // `items` → OrderItem.
      return listOf(
        nested(responseClass(`Order${capitalized(name.replace(/s$/, ''))}`, field.members, version)),
        {
          max: field.max,
        },
      );
    case 'money':
      return version === 'v2' ? nested(MoneyV2) : fieldKindOf(field);
    default:
      return fieldKindOf(field);
  }
}

export const OrderResponse = responseClass('Order', ORDER_FIELDS, 'v1');
export const OrderItemResponse = responseClass('OrderItem', ORDER_FIELDS.items.members, 'v1');
export const OrderV2Response = responseClass('Order', ORDER_FIELDS, 'v2');

export class OrderPageResponse extends OffsetPageResponse(OrderResponse, 'OrderPageResponse') {}

export class OrderCursorPageResponse extends CursorPageResponse(OrderResponse, 'OrderCursorPageResponse') {}

export class OrderItemPageResponse extends OffsetPageResponse(OrderItemResponse, 'OrderItemPageResponse') {}

export class OrderV2PageResponse extends OffsetPageResponse(OrderV2Response, 'OrderV2PageResponse') {}

export class OrderV2CursorPageResponse extends CursorPageResponse(
  OrderV2Response,
  'OrderV2CursorPageResponse',
) {}

/** The body of the deprecated `GET /api/v1/orders/{orderId}/status`. */
export class OrderStatusResponse {
  @ResponseField(oneOf(ORDER_STATUSES, 'OrderStatus'))
  status: string;
}
