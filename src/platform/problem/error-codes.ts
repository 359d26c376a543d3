/**
 * The one registry of error codes. It feeds the problem-details filter (status), the i18n catalogues
 * (`errors.<CODE>` in i18n/<lang>/errors.json, checked by a test) and the OpenAPI `ErrorCode` enum.
 * Adding a code is non-breaking (docs/versioning.md); renaming or removing one is not.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  BATCH_SIZE_EXCEEDED: 400,
  BATCH_TRANSACTION_FAILED: 400,
  UNAUTHORIZED: 401,
  ACCESS_DENIED: 403,
  CUSTOMER_BLOCKED: 403,
  RESOURCE_NOT_FOUND: 404,
  ORDER_NOT_FOUND: 404,
  PRODUCT_NOT_FOUND: 404,
  ITEM_NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  ATTACHMENT_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  REPORT_NOT_FOUND: 404,
  EXPORT_NOT_FOUND: 404,
  ADDRESS_NOT_FOUND: 404,
  WEBHOOK_ENDPOINT_NOT_FOUND: 404,
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  INVALID_ORDER_STATE: 409,
  INVALID_TASK_STATE: 409,
  INVALID_DELIVERY_STATE: 409,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 409,
  ORDER_EMPTY: 409,
  INSUFFICIENT_STOCK: 409,
  PRODUCT_OUT_OF_STOCK: 409,
  PRODUCT_DISCONTINUED: 409,
  INSUFFICIENT_BALANCE: 409,
  DELIVERY_ADDRESS_MISSING: 409,
  CONCURRENT_MODIFICATION: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  ENDPOINT_REMOVED: 410,
  PAYLOAD_TOO_LARGE: 413,
  FILE_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNSUPPORTED_FILE_TYPE: 415,
  URI_TOO_LONG: 414,
  RATE_LIMIT_EXCEEDED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  REPORT_GENERATION_FAILED: 500,
  EXPORT_DATA_UNAVAILABLE: 500,
  SERVICE_UNAVAILABLE: 503,
  EXT_SYSTEM_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

/**
 * Codes of single violations (`violations[].code`): upper-cased constraint names plus the domain codes a
 * field can fail with. Messages live under `validation.<CODE>`.
 */
export const VIOLATION_CODES = [
  'REQUIRED',
  'INVALID_FORMAT',
  'INVALID_TYPE',
  'INVALID_VALUE',
  'MIN',
  'MAX',
  'MIN_LENGTH',
  'MAX_LENGTH',
  'MIN_ITEMS',
  'MAX_ITEMS',
  'UNKNOWN_FIELD',
  'READ_ONLY',
  'INVALID_JSON',
  'MAX_DEPTH',
  'INVALID_MULTIPART',
  'INVALID_RANGE',
  'MAX_RANGE',
  'INVALID_CURSOR',
  'CURSOR_EXPIRED',
  'INVALID_QUERY',
  'INVALID_QUANTITY',
  'PRODUCT_NOT_FOUND',
  'PRODUCT_DISCONTINUED',
  'PRODUCT_OUT_OF_STOCK',
  'INSUFFICIENT_STOCK',
  'DEFAULT_ADDRESS_REQUIRED',
  'URL_NOT_ALLOWED',
] as const;
export type ViolationCode = (typeof VIOLATION_CODES)[number];

export function problemType(code: string): string {
  return `urn:problem:order-service:${code.toLowerCase().replace(/_/g, '-')}`;
}

/** `title` is the English status name and never localized. */
export const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
