import { registerDecorator, ValidationOptions } from 'class-validator';

/**
 * Marks a response field that a request body may not set (`status`, `items` or any read-only field in a patch
 * is a 400 naming the field: docs/decisions/0015-patch-bodies-and-read-only-fields.md). Any value present
 * fails with violation code READ_ONLY.
 */
export function ReadOnly(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'readOnly',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: { validate: (value: unknown) => value === undefined },
    });
  };
}
