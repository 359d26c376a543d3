import { ApiClient, apiClient } from './http-client';
import { TestApp } from './test-app';
import { bearer } from './tokens';

/** A client of `t` authenticated as a new ADMIN. */
export async function adminClient(t: TestApp): Promise<ApiClient> {
  return apiClient(t, await bearer(t.config, ['ADMIN']));
}

/** A client of `t` authenticated as a CUSTOMER: the user `userId`, or a new one. */
export async function customerClient(t: TestApp, userId?: string): Promise<ApiClient> {
  return apiClient(t, await bearer(t.config, ['CUSTOMER'], userId));
}
