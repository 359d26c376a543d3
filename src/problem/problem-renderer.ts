import { Injectable } from '@nestjs/common';
import { AppException } from './app-exception';
import { Language } from './language';
import { buildProblem, ProblemBody } from './problem';
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
      detail: this.translator.translate(options.detailKey ?? `errors.${code}`, lang, options.args),
      traceId,
      violations: options.violations?.map((v) => ({
        field: v.field,
        code: v.code,
        message: this.translator.translate(`validation.${v.code}`, lang, v.args),
      })),
      extensions: options.extensions,
    });
  }
}
