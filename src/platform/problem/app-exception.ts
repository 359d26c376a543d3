import { ErrorCode, ERROR_CODES, ViolationCode } from './error-codes';

export type TranslationArgs = Record<string, string | number>;

/** A violation before localization: the filter turns `code` + `args` into `message`. */
export interface ViolationInput {
  field: string;
  code: ViolationCode;
  args?: TranslationArgs;
}

export interface AppExceptionOptions {
  /** Arguments of the `errors.<CODE>` text (or of `detailKey`). */
  args?: TranslationArgs;
  /** Another catalogue key for `detail` when one code has several wordings. */
  detailKey?: string;
  violations?: ViolationInput[];
  /** Extension members of the problem body (RFC 9457 §3.2), e.g. `failedItems`. */
  extensions?: Record<string, unknown>;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
}

/**
 * The one exception type of the domain and the mechanisms: it carries a registered code and i18n
 * arguments, never display text. Services throw it; the problem filter renders it.
 */
export class AppException extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly options: AppExceptionOptions = {},
  ) {
    super(code);
    this.name = 'AppException';
    this.status = ERROR_CODES[code];
  }

  static validation(violations: ViolationInput[]): AppException {
    return new AppException('VALIDATION_ERROR', { violations });
  }
}
