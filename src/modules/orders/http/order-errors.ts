/** Codes every operation on one order can answer, and those of every change of one. */
export const ORDER_ERRORS = ['ORDER_NOT_FOUND', 'ACCESS_DENIED'] as const;
export const WRITE_ERRORS = [...ORDER_ERRORS, 'INVALID_ORDER_STATE', 'CONCURRENT_MODIFICATION'] as const;
