import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { AppException } from '../problem/app-exception';
import { isDtoClass, validateDto } from './dto-validation';
import { validatedInput } from './validated-inputs';

/**
 * The global pipe of every `@Body()` and `@Query()` typed with a DTO class. On HTTP routes the request
 * validation guard has already built and checked the DTOs (every problem of the request at once); the pipe
 * hands them over. Elsewhere (a multipart form's text parts) it turns the plain input into the DTO and
 * validates it itself: an absent input is an empty object, so each required field is reported.
 */
@Injectable()
export class ValidationPipe implements PipeTransform<unknown> {
  async transform(value: unknown, { type, metatype, data }: ArgumentMetadata): Promise<unknown> {
    if (type === 'custom' || !isDtoClass(metatype)) return value;
    const validated = validatedInput(type, data);
    if (validated.found) return validated.value;
    const outcome = validateDto(metatype, value === undefined ? {} : value, data ?? '');
    if (!outcome.ok) throw AppException.validation(outcome.violations);
    return outcome.value;
  }
}
