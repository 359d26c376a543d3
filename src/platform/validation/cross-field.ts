import { registerDecorator, ValidationArguments } from 'class-validator';

/**
 * Rules that relate one field to another, as class-validator constraints on the DTO: they are checked with
 * every other rule of the request (one 400 with every violation), and their names are violation codes
 * (`invalidRange` → INVALID_RANGE; see violations.ts).
 */

function other(args: ValidationArguments, property: string): unknown {
  return (args.object as Record<string, unknown>)[property];
}

function comparable(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** A lower bound not above its upper bound `upperProperty` (either may be absent): else INVALID_RANGE here. */
export function NotAbove(upperProperty: string): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'invalidRange',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [upperProperty],
      options: { message: '' },
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          const upper = other(args, upperProperty);
          if (!comparable(value) || !comparable(upper) || typeof value !== typeof upper) return true;
          return value <= upper;
        },
      },
    });
}

/**
 * A date (YYYY-MM-DD) at most `maxDays` days after `fromProperty`, both days counted: else MAX_RANGE with
 * `{max}` here. Reversed or malformed dates are other rules' business.
 */
export function WithinDaysOf(fromProperty: string, maxDays: number): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'maxRange',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [fromProperty, maxDays],
      options: { message: '', context: { max: maxDays } },
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          const from = other(args, fromProperty);
          if (typeof value !== 'string' || typeof from !== 'string') return true;
          const days = (Date.parse(`${value}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
          return !(days > maxDays);
        },
      },
    });
}

/** Not together with `otherProperty` (two ways of asking for the same thing): else INVALID_QUERY here. */
export function NotWith(otherProperty: string): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'invalidQuery',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [otherProperty],
      options: { message: '' },
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          value === undefined || other(args, otherProperty) === undefined,
      },
    });
}

/**
 * A list of `<field>,<asc|desc>` sort keys (the GET list's `sort`), each of a known field and none twice:
 * else INVALID_QUERY. With `key`, a list of objects none of which repeats its `key` member (POST search).
 */
export function SortKeys(fields: readonly string[]): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'invalidQuery',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [fields],
      options: { message: '' },
      validator: {
        validate(value: unknown): boolean {
          if (!Array.isArray(value)) return true;
          const seen = new Set<string>();
          return value.every((item) => {
            const match = typeof item === 'string' ? /^(\w+),(asc|desc)$/.exec(item) : null;
            if (!match || !fields.includes(match[1]) || seen.has(match[1])) return false;
            seen.add(match[1]);
            return true;
          });
        },
      },
    });
}

/** A list of objects none of which repeats its `key` member: else INVALID_QUERY. */
export function UniqueBy(key: string): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'invalidQuery',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [key],
      options: { message: '' },
      validator: {
        validate(value: unknown): boolean {
          if (!Array.isArray(value)) return true;
          const members = value.map((item) => (item as Record<string, unknown> | null)?.[key]);
          return new Set(members).size === members.length;
        },
      },
    });
}
