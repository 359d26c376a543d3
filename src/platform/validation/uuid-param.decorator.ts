import { ArgumentMetadata, Injectable, Param, PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { isUUID } from 'class-validator';
import { AppException } from '../problem/app-exception';
import { schemaOf, uuid } from './fields';

/** A path id must be a uuid (any version, either case); it is passed on in lower case. */
@Injectable()
export class ParseUuidPipe implements PipeTransform<unknown, string> {
  transform(value: unknown, { data }: ArgumentMetadata): string {
    if (typeof value !== 'string' || !isUUID(value)) {
      throw AppException.validation([
        { field: data ?? '', code: 'INVALID_FORMAT', args: { format: 'uuid' } },
      ]);
    }
    return value.toLowerCase();
  }
}

/**
 * `@UuidParam('orderId') orderId: string`: the path variable `{orderId}`, which must be a uuid; a malformed
 * one is 400 VALIDATION_ERROR with violation `{ field: 'orderId', code: 'INVALID_FORMAT' }`. Declares the
 * parameter as a uuid (`format: uuid`, 36 characters) in the OpenAPI document.
 */
export function UuidParam(name: string): ParameterDecorator {
  return (target, propertyKey, parameterIndex) => {
    Param(name, ParseUuidPipe)(target, propertyKey, parameterIndex);
    if (propertyKey === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, propertyKey);
    if (descriptor) ApiParam({ name, schema: schemaOf(uuid()) })(target, propertyKey, descriptor);
  };
}
