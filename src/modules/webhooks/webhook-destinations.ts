import { lookup } from 'node:dns/promises';
import { DestinationPolicy, DestinationRefusal } from './domain/destination-policy';

/**
 * The provider of the resolver that judges webhook URLs at create and patch and at every attempt's connect
 * (the system's resolver).
 */
export const WEBHOOK_HOST_RESOLVER = Symbol('WEBHOOK_HOST_RESOLVER');

/** An address a name resolved to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address (A and AAAA) of a host name. Injectable so tests can play any DNS answer. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/**
 * The system's resolver, as a connection would use it (getaddrinfo: /etc/hosts, then DNS), every address of
 * both families.
 */
export const systemHostResolver: HostResolver = async (hostname) => {
  const addresses = await lookup(hostname, { all: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** How long a create or patch waits for a name to resolve before it accepts the URL as it is. */
export const DESTINATION_RESOLVE_TIMEOUT_MS = 2000;

export type DestinationCheck =
  /** `resolved`: false when the name did not resolve in time (each attempt checks its addresses anyway). */
  | { readonly allowed: true; readonly resolved: boolean }
  | { readonly allowed: false; readonly refusal: DestinationRefusal };

/**
 * Judges a webhook URL for an endpoint's create or patch: its form, then every address its host resolves to;
 * one refused address refuses the URL. A name that does not resolve within the time limit (or not at all) is
 * accepted: the receiver's DNS may not be set up yet, and every attempt judges the addresses it connects to.
 */
export async function checkWebhookDestination(
  url: string,
  policy: DestinationPolicy,
  resolveHost: HostResolver = systemHostResolver,
  timeoutMs: number = DESTINATION_RESOLVE_TIMEOUT_MS,
): Promise<DestinationCheck> {
  const verdict = policy.checkUrl(url);
  if (!verdict.allowed) return verdict;
  if (verdict.literal || policy.allowsEveryAddress) return { allowed: true, resolved: true };
  const addresses = await withinTime(resolveHost(verdict.host), timeoutMs);
  if (addresses === undefined || addresses.length === 0) return { allowed: true, resolved: false };
  for (const { address } of addresses) {
    const judged = policy.checkAddress(address);
    if (!judged.allowed) {
      return {
        allowed: false,
        refusal: { ...judged.refusal, detail: `${verdict.host}: ${judged.refusal.detail}` },
      };
    }
  }
  return { allowed: true, resolved: true };
}

/** The value of `promise` if it settles successfully within `ms`, else undefined. */
async function withinTime<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
