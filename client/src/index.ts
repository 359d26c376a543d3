export type { RetryOptions, TokenSource } from './attempts.js';
export {
  createOrderServiceClient,
  ifMatch,
  type CallMethod,
  type CallResult,
  type ClientOptions,
  type ClientPaths,
  type Event,
  type EventFeedQuery,
  type EventType,
  type Order,
  type OrderFilters,
  type OrderServiceClient,
} from './client.js';
export { cursorItems, type CursorItemsOptions, type CursorPage, type FollowOptions } from './cursor-pages.js';
export type { components, operations, paths } from './generated/openapi.js';
export {
  ProblemError,
  UnexpectedResponseError,
  type ErrorCode,
  type Problem,
  type Violation,
} from './problem-error.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
