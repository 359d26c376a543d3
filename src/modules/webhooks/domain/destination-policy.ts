import { ipFamily, IpNetwork, parseIpNetwork } from './ip-address';
import { embeddedIpv4, specialPurposeRange } from './special-purpose-addresses';

/**
 * Where webhooks may go (server-side request forgery guard). A URL is accepted when it is an absolute `https`
 * URL without user info, at most `MAX_WEBHOOK_URL_LENGTH` characters, and every address it resolves to is a
 * globally reachable unicast address (./special-purpose-addresses.ts), unless the address lies in one of the
 * allowed networks. Allowing private URLs (development, tests) admits `http` and every address.
 *
 * The URL is read by the WHATWG URL parser, the one the sender uses too, so every numeric spelling of an IPv4
 * address (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`) is judged as the dotted address it means, and an
 * IPv6 literal in any spelling as its canonical form.
 */
export interface DestinationPolicySettings {
  /** `http` and every address allowed (development, tests). */
  readonly allowPrivateUrls: boolean;
  /** CIDRs (`10.0.0.0/8`, `fd00::/8`) a webhook may target although they are not globally reachable. */
  readonly allowedNetworks: readonly string[];
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Why a destination is refused: which rule, and the facts in words (for logs and the endpoint's owner). */
export interface DestinationRefusal {
  readonly rule: 'NOT_A_URL' | 'TOO_LONG' | 'SCHEME' | 'USER_INFO' | 'LOCAL_NAME' | 'ADDRESS';
  readonly detail: string;
}

export type AddressVerdict =
  { readonly allowed: true } | { readonly allowed: false; readonly refusal: DestinationRefusal };

/** An accepted URL: the parsed URL and the host to connect to (brackets of an IPv6 literal removed). */
export interface AcceptedUrl {
  readonly allowed: true;
  readonly url: URL;
  readonly host: string;
  /** The host is an IP address, already judged: there is no name to resolve. */
  readonly literal: boolean;
}

export type UrlVerdict = AcceptedUrl | { readonly allowed: false; readonly refusal: DestinationRefusal };

const ALLOWED: AddressVerdict = { allowed: true };

/** RFC 6761: `localhost` and every name under it are the loopback host, whatever a resolver says. */
const LOCALHOST_NAME = /(?:^|\.)localhost\.?$/;

export class DestinationPolicy {
  private readonly allowedNetworks: readonly IpNetwork[];

  constructor(private readonly settings: DestinationPolicySettings) {
    this.allowedNetworks = settings.allowedNetworks.map((cidr) => {
      const network = parseIpNetwork(cidr);
      if (network === undefined) throw new Error(`not a CIDR: ${cidr}`);
      return network;
    });
  }

  /** Whether every address is allowed (no name needs resolving to judge a URL). */
  get allowsEveryAddress(): boolean {
    return this.settings.allowPrivateUrls;
  }

  /** Judges what can be judged without resolving: the URL's form and a literal address or local name. */
  checkUrl(text: string): UrlVerdict {
    if (text.length > MAX_WEBHOOK_URL_LENGTH) {
      return refuse('TOO_LONG', `the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
    }
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return refuse('NOT_A_URL', 'not an absolute URL');
    }
    const schemes = this.settings.allowPrivateUrls ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) {
      return refuse('SCHEME', `the scheme must be ${schemes.map((s) => s.slice(0, -1)).join(' or ')}`);
    }
    if (url.username !== '' || url.password !== '')
      return refuse('USER_INFO', 'the URL must carry no user info');
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const literal = ipFamily(host) !== undefined;
    if (literal) {
      const verdict = this.checkAddress(host);
      if (!verdict.allowed) return verdict;
    } else if (!this.settings.allowPrivateUrls && LOCALHOST_NAME.test(host)) {
      return refuse('LOCAL_NAME', `${host} is a name of the loopback host`);
    }
    return { allowed: true, url, host, literal };
  }

  /** Judges one address a name resolved to (or a literal one), as resolvers write it. */
  checkAddress(text: string): AddressVerdict {
    if (this.settings.allowPrivateUrls) return ALLOWED;
    if (ipFamily(text) === undefined) return refuse('ADDRESS', `${text} is not an IP address`);
    if (this.isAllowedNetwork(text)) return ALLOWED;
    const embedded = embeddedIpv4(text);
    if (embedded) {
      if (this.isAllowedNetwork(embedded.ipv4)) return ALLOWED;
      const ipv4Range = specialPurposeRange(embedded.ipv4);
      if (ipv4Range === undefined) return ALLOWED;
      return refuse(
        'ADDRESS',
        `${text} is ${embedded.ipv4} (${embedded.form}), a ${ipv4Range.name} address ` +
          `(${ipv4Range.cidr})`,
      );
    }
    const special = specialPurposeRange(text);
    if (special === undefined) return ALLOWED;
    return refuse('ADDRESS', `${text} is a ${special.name} address (${special.cidr})`);
  }

  private isAllowedNetwork(address: string): boolean {
    return this.allowedNetworks.some((network) => network.contains(address));
  }
}

function refuse(
  rule: DestinationRefusal['rule'],
  detail: string,
): { allowed: false; refusal: DestinationRefusal } {
  return { allowed: false, refusal: { rule, detail } };
}
