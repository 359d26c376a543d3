import { Transform } from 'class-transformer';

/** A decimal number as people write it: no sign but `-`, no exponent, no hex, no blanks, no empty string. */
const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/**
 * A number in a query string (`?page=2`, `?amountTo=99.5`). Only plain decimal text becomes a number;
 * anything else (`''`, `0x2`, `1e3`, ` 7`) stays text, so `@IsInt()` / `@IsNumber()` report INVALID_TYPE
 * instead of accepting what JavaScript's `Number()` would make of it.
 */
export function QueryNumber(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value,
  );
}
