import { randomUUID } from 'node:crypto';
import { InjectOptions, LightMyRequestResponse } from 'fastify';
import { TestApp } from './test-app';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The content type PATCH takes (JSON Merge Patch, RFC 7396). */
export const MERGE_PATCH = 'application/merge-patch+json';

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  lang?: 'ru' | 'en';
  contentType?: string;
}

/** Finds `null` or `""` anywhere in a body: 2xx bodies must have neither (the JSON output rules). */
export function emptyValuePaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (value === '') return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => emptyValuePaths(v, `${path}[${i}]`));
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      emptyValuePaths(v, `${path}.${k}`),
    );
  }
  return [];
}

/** One caller's view of the app: `client('GET', url, options)`. */
export type ApiClient = (
  method: Method,
  url: string,
  options?: CallOptions,
) => Promise<LightMyRequestResponse>;

/**
 * A client of the app for one caller. Every 2xx JSON body it sees is checked for `null` and `""`, so the
 * whole e2e suite enforces the output rule, not one test.
 */
export function apiClient(t: TestApp, authorization?: string): ApiClient {
  return async (method, url, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (authorization) headers.authorization = authorization;
    if (options.lang) headers['accept-language'] = options.lang;
    const request: InjectOptions = { method, url, headers };
    if (options.body !== undefined) {
      request.payload = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const res = await t.app.inject(request);
    if (
      res.statusCode >= 200 &&
      res.statusCode < 300 &&
      res.body.length > 0 &&
      /json/.test(String(res.headers['content-type']))
    ) {
      const empties = emptyValuePaths(res.json());
      if (empties.length > 0)
        throw new Error(`${method} ${url} returned null/"" at ${empties.join(', ')}: ${res.body}`);
    }
    return res;
  };
}

/** Request headers carrying an `Idempotency-Key` (a fresh uuid unless `key` is given), plus `headers`. */
export function withIdempotencyKey(
  key: string = randomUUID(),
  headers: Record<string, string> = {},
): Record<string, string> {
  return { 'idempotency-key': key, ...headers };
}

/** The JSON body of a response that must have `status`; otherwise fails with what the app answered. */
export function bodyWithStatus<T>(res: LightMyRequestResponse, status: number, request: string): T {
  if (res.statusCode !== status) {
    throw new Error(`${request} answered ${res.statusCode}, not ${status}: ${res.body}`);
  }
  return res.json<T>();
}
