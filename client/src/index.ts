export type { RetryOptions, TokenSource } from './attempts.js';
export { AbortError, NetworkError, TimeoutError } from './call-errors.js';
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
export type { components, operations, paths } from './generated/openapi.js';
export type { Resources } from './generated/resources.js';
export {
  cursorItems,
  offsetItems,
  type CursorItemsOptions,
  type CursorPage,
  type FollowOptions,
  type OffsetPage,
} from './list-pages.js';
export {
  ProblemError,
  UnexpectedResponseError,
  type ErrorCode,
  type Problem,
  type Violation,
} from './problem-error.js';
export { responseOf } from './resource-methods.js';
export type {
  Answer,
  Body,
  CallOptions,
  CursorWalkQuery,
  HeaderParameters,
  Item,
  OffsetWalkQuery,
  OperationId,
  PathParameter,
  Query,
  WalkOptions,
} from './resource-types.js';
export { TaskFailedError, type Task, type TaskWaits, type WaitOptions } from './task-waits.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
