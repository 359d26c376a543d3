import { CanActivate, ExecutionContext, Injectable, PipeTransform, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { ClassConstructor } from 'class-transformer';
import type { FastifyRequest } from 'fastify';
import { isApiRoute } from '../http/api-route';
import { AppException, ViolationInput } from '../problem/app-exception';
import { OPTIONAL_BODY } from './body-rules';
import { assertMediaType, CONTENT_TYPES } from './content-type.decorator';
import { isDtoClass, validateDto } from './dto-validation';
import { HEADER_RULES, HeaderRule, headerViolations } from './header-rules';
import { rememberValidatedInputs } from './validated-inputs';

interface RouteArgument {
  index: number;
  data?: string;
  pipes?: Array<PipeTransform | Type<PipeTransform>>;
}

/** What a handler takes from a request, read once from its decorators. */
interface HandlerInputs {
  headers: readonly HeaderRule[];
  params: Array<{ name: string; pipes: PipeTransform[] }>;
  query?: ClassConstructor<object>;
  /** `false`: no `@Body()` at all; `'plain'`: a body that is not a DTO (passed as it is). */
  body: ClassConstructor<object> | 'plain' | false;
  bodyField?: string;
  bodyOptional: boolean;
  /** The media types declared with `@Consumes()`. */
  mediaTypes?: readonly string[];
}

/**
 * The input of a request is validated in one step, before anything of the handler runs (every problem at
 * once): the headers the handler declares rules for (`Idempotency-Key`…), the path variables (`@UuidParam`),
 * the query DTO and the body DTO, cross-field rules included (they are DTO constraints). One 400
 * VALIDATION_ERROR lists every violation, headers first, then path, query, body. A guard, after
 * authentication and before the idempotency interceptor, so a refused request binds no `Idempotency-Key`
 * (docs/decisions/0058-input-validated-in-one-step.md). The DTOs it builds are handed to the validation pipe,
 * which then has nothing left to check.
 *
 * Media types declared with `@Consumes()` come first (415 naming the accepted ones).
 * Body rules: a handler that takes a body requires one (`{}` is a body) unless marked `@OptionalBody()`;
 * a handler that takes none refuses a body with fields in it (UNKNOWN_FIELD each).
 */
@Injectable()
export class RequestValidationGuard implements CanActivate {
  private readonly inputs = new WeakMap<object, HandlerInputs>();

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!isApiRoute(request)) return true;
    const inputs = this.inputsOf(context);
    // A body the route cannot read is refused before it is looked at.
    if (inputs.mediaTypes) assertMediaType(request.headers, inputs.mediaTypes);
    const violations: ViolationInput[] = headerViolations(request.headers, inputs.headers);
    const values = new Map<string, unknown>();

    const params = (request.params ?? {}) as Record<string, unknown>;
    for (const { name, pipes } of inputs.params) {
      try {
        let value: unknown = params[name];
        for (const pipe of pipes) value = pipe.transform(value, { type: 'param', data: name });
        values.set(`param:${name}`, value);
      } catch (error: unknown) {
        violations.push(...violationsOf(error));
      }
    }
    if (inputs.query) {
      const outcome = validateDto(inputs.query, request.query ?? {});
      if (outcome.ok) values.set('query:', outcome.value);
      else violations.push(...outcome.violations);
    }
    violations.push(...this.bodyViolations(request.body, inputs, values));

    if (violations.length > 0) throw AppException.validation(violations);
    rememberValidatedInputs(request.trace, values);
    return true;
  }

  private bodyViolations(
    body: unknown,
    inputs: HandlerInputs,
    values: Map<string, unknown>,
  ): ViolationInput[] {
    const key = `body:${inputs.bodyField ?? ''}`;
    if (inputs.body === false) {
      // A handler without parameters takes no body: `{}` (or none) is fine, fields are not.
      if (body === undefined) return [];
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return [{ field: '', code: 'INVALID_TYPE', args: { type: 'object' } }];
      }
      return Object.keys(body).map((field) => ({ field, code: 'UNKNOWN_FIELD' }));
    }
    if (body === undefined) {
      if (inputs.bodyOptional) {
        values.set(key, undefined);
        return [];
      }
      return [{ field: '', code: 'REQUIRED' }];
    }
    if (inputs.body === 'plain') return [];
    const input = inputs.bodyField ? (body as Record<string, unknown>)[inputs.bodyField] : body;
    const outcome = validateDto(inputs.body, input, inputs.bodyField ?? '');
    if (!outcome.ok) return outcome.violations;
    values.set(key, outcome.value);
    return [];
  }

  private inputsOf(context: ExecutionContext): HandlerInputs {
    const handler = context.getHandler();
    let inputs = this.inputs.get(handler);
    if (!inputs) {
      inputs = readInputs(context.getClass(), handler);
      this.inputs.set(handler, inputs);
    }
    return inputs;
  }
}

function readInputs(controller: Type<unknown>, handler: object): HandlerInputs {
  const method = (handler as { name: string }).name;
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
    string,
    RouteArgument
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) ??
    []) as unknown[];
  const inputs: HandlerInputs = {
    headers: (Reflect.getMetadata(HEADER_RULES, handler) as HeaderRule[] | undefined) ?? [],
    params: [],
    body: false,
    bodyOptional: Reflect.getMetadata(OPTIONAL_BODY, handler) === true,
    mediaTypes: Reflect.getMetadata(CONTENT_TYPES, handler) as string[] | undefined,
  };
  for (const [key, argument] of Object.entries(args)) {
    const paramtype = Number(key.split(':')[0]);
    const metatype = types[argument.index];
    if (paramtype === RouteParamtypes.PARAM && argument.data) {
      inputs.params.push({ name: argument.data, pipes: (argument.pipes ?? []).map(pipeInstance) });
    } else if (paramtype === RouteParamtypes.QUERY && argument.data === undefined && isDtoClass(metatype)) {
      inputs.query = metatype;
    } else if (paramtype === RouteParamtypes.BODY) {
      inputs.body = isDtoClass(metatype) ? metatype : 'plain';
      inputs.bodyField = argument.data;
    }
  }
  return inputs;
}

function pipeInstance(pipe: PipeTransform | Type<PipeTransform>): PipeTransform {
  // Pipes named by class (`@Param('id', ParseUuidPipe)`) have no dependencies here.
  return typeof pipe === 'function' ? new pipe() : pipe;
}

function violationsOf(error: unknown): ViolationInput[] {
  if (error instanceof AppException && error.code === 'VALIDATION_ERROR')
    return error.options.violations ?? [];
  throw error;
}
