import { Transform } from 'class-transformer';

/**
 * A repeatable query parameter (`?status=A&status=B`) arrives as an array, a single one (`?status=A`) as a
 * string: this makes both a list, so `@IsEnum(X, { each: true })` and friends see one shape. Values are not
 * split at commas (`?status=A,B` is one invalid value). Put it beside `@QueryNumber()` for lists
 * of numbers: the type conversion runs first, on each element.
 */
export function ToArray(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    value == null || Array.isArray(value) ? value : [value],
  );
}
