import { Injectable } from '@nestjs/common';
import { AppException } from './app-exception';
import { Language } from './language';
import {
  buildProblem,
  MAX_FIELD_PATH_LENGTH,
  MAX_PROBLEM_TEXT_LENGTH,
  MAX_VIOLATIONS,
  ProblemBody,
} from './problem';
import { Translator } from './translator';

/**
 * The one renderer of problems: an AppException (a registered code with i18n arguments, never text) in a
 * language becomes the Problem Details body. The exception filter renders whole responses with it; batch
 * operations render item errors (the reduced `{code, detail}` form) with it.
 */
@Injectable()
export class ProblemRenderer {
  constructor(private readonly translator: Translator) {}

  render(exception: AppException, lang: Language, traceId?: string): ProblemBody {
    const { options, code, status } = exception;
    return buildProblem({
      status,
      code,
      detail: cut(
        this.translator.translate(options.detailKey ?? `errors.${code}`, lang, options.args),
        MAX_PROBLEM_TEXT_LENGTH,
      ),
      traceId,
      violations: options.violations?.slice(0, MAX_VIOLATIONS).map((v) => ({
        field: cut(v.field.replace(CONTROL_CHARACTERS, '\uFFFD'), MAX_FIELD_PATH_LENGTH),
        code: v.code,
        message: cut(
          this.translator.translate(`validation.${v.code}`, lang, v.args),
          MAX_PROBLEM_TEXT_LENGTH,
        ),
      })),
      extensions: options.extensions,
    });
  }
}

/** A field path names what the client sent, unknown names included: their control characters are not echoed. */
const CONTROL_CHARACTERS = /\p{Cc}/gu;

/** `value` cut to `max` code points, the last one an ellipsis when it was longer. */
function cut(value: string, max: number): string {
  const chars = [...value];
  return chars.length <= max ? value : `${chars.slice(0, max - 1).join('')}…`;
}
