import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { map, Observable } from 'rxjs';
import { toJsonOutput } from './json-output';

/**
 * Applies the JSON output rules (`toJsonOutput`) to every successful handler result, so controllers and
 * views may hand over `Date`s and leave absent fields `undefined`/`null`. Errors never pass here: problem
 * bodies are rendered by the problem filter.
 */
@Injectable()
export class JsonOutputInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    return next.handle().pipe(map(toJsonOutput));
  }
}
