import {
  FieldKind,
  integer,
  oneOf,
  patterned,
  text,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import type { ScalarField } from '../../domain/order-fields';
import { ORDER_STATUSES } from '../../domain/order-status';

/** ISO 4217 code of the order's currency. */
export const CURRENCY = patterned({ pattern: /^[A-Z]{3}$/, max: 3, format: 'ISO 4217', example: 'RUB' });

/**
 * The field kind (schema and constraints, src/platform/validation/fields.ts) of a scalar field of the order's
 * declaration, as a request sets it or v1 serves it: the bounds are the declaration's, so a request and a
 * response declare the same ones. Money is served only (v1: a JSON number; v2 serves MoneyV2 instead).
 */
export function fieldKindOf(field: ScalarField): FieldKind {
  switch (field.kind) {
    case 'uuid':
      return uuid();
    case 'status':
      return oneOf(ORDER_STATUSES, 'OrderStatus');
    case 'currency':
      return CURRENCY;
    case 'text':
      return text(field.bounds);
    case 'integer':
      return integer(field.bounds);
    case 'timestamp':
      return timestamp();
    case 'money':
      return servedNumber(field.example);
  }
}

/** A JSON number a response carries (no request takes one of these). */
function servedNumber(example: number | undefined): FieldKind {
  return {
    schema: { type: 'number', ...(example !== undefined ? { example } : {}) },
    constraints: () => [],
  };
}
