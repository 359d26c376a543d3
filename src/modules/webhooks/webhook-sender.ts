import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { AttemptOutcome, outcomeOfAnswer } from './domain/attempt-outcome';
import { DestinationPolicy } from './domain/destination-policy';
import { webhookHeaders } from './domain/webhook-signature';
import { HostResolver, systemHostResolver } from './webhook-destinations';

/** One attempt of one delivery: where, the message's id (the same on every attempt), its bytes, its secrets. */
export interface WebhookMessage {
  readonly url: string;
  readonly webhookId: string;
  /** The body exactly as signed and sent. */
  readonly body: Buffer;
  /** Every secret still valid for the endpoint (`whsec_…`): one signature each. */
  readonly secrets: readonly string[];
}

export interface WebhookSenderOptions {
  readonly policy: DestinationPolicy;
  /** Resolves names at connect time; the system's resolver unless a test plays DNS. */
  readonly resolveHost?: HostResolver;
  /** How long the status line and headers may take, connecting and sending included. */
  readonly responseTimeoutMs?: number;
  /** Certificate authorities trusted instead of the system's (a test's self-signed receiver). */
  readonly ca?: https.AgentOptions['ca'];
  /** Unix milliseconds now: the attempt's `webhook-timestamp`. */
  readonly now?: () => number;
}

export const WEBHOOK_RESPONSE_TIMEOUT_MS = 10_000;
/** The answer's body is read up to this and discarded; a longer one ends the connection. */
export const MAX_ANSWER_BODY_BYTES = 64 * 1024;
/**
 * A kept-alive connection idle this long is closed by the sender, before a receiver closes it (Node's servers
 * do after 5 s): a connection reused just as the receiver closes it fails the attempt.
 */
const IDLE_CONNECTION_MS = 4000;
const USER_AGENT = 'order-service-webhooks';

/** A connect-time lookup that found an address the policy refuses (DNS rebinding, or a changed record). */
class RefusedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';

  constructor(
    readonly host: string,
    /** Every address the name resolved to, the refused one among them. */
    readonly addresses: readonly string[],
    detail: string,
  ) {
    super(`${host}: ${detail}`);
  }
}

/**
 * Sends one attempt of one delivery, by the Standard Webhooks rules: `POST` of the exact body bytes with
 * `Content-Type: application/json` and the signature headers; the answer classified for the delivery record.
 *
 * The connection goes to an address that was judged: the agents resolve each name when they connect, through
 * a lookup that judges every address and refuses the connection when one is refused, so an answer that changed
 * since the endpoint was saved (DNS rebinding) is caught; a literal address is judged before the request. TLS
 * still checks the certificate against the URL's host name. Environment proxies are never used (the agents are
 * the sender's own, made without proxy settings), redirects are not followed (Node's client never does; a 3xx
 * is a failed attempt), and connections are kept alive per destination between attempts.
 */
export class WebhookSender {
  private readonly agents: { readonly http: http.Agent; readonly https: https.Agent };
  private readonly policy: DestinationPolicy;
  private readonly responseTimeoutMs: number;
  private readonly now: () => number;

  constructor(options: WebhookSenderOptions) {
    this.policy = options.policy;
    this.responseTimeoutMs = options.responseTimeoutMs ?? WEBHOOK_RESPONSE_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    const lookup = judgingLookup(options.policy, options.resolveHost ?? systemHostResolver);
    const agentOptions = { keepAlive: true, timeout: IDLE_CONNECTION_MS, lookup };
    this.agents = {
      http: new http.Agent(agentOptions),
      https: new https.Agent({ ...agentOptions, ...(options.ca ? { ca: options.ca } : {}) }),
    };
  }

  /**
   * Makes the attempt. Every failure of the attempt is an outcome; it rejects only for a message it cannot
   * sign (no secret, or a malformed one), which is a defect of the caller.
   */
  async send(message: WebhookMessage): Promise<AttemptOutcome> {
    const verdict = this.policy.checkUrl(message.url);
    if (!verdict.allowed) return refusedUrl(message.url, verdict.refusal.detail);
    const { url, host, literal } = verdict;
    const secure = url.protocol === 'https:';
    return this.post(secure ? https : http, message.body, {
      method: 'POST',
      host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: {
        'content-type': 'application/json',
        'content-length': message.body.length,
        'user-agent': USER_AGENT,
        ...webhookHeaders(message.secrets, message.webhookId, Math.floor(this.now() / 1000), message.body),
      },
      agent: secure ? this.agents.https : this.agents.http,
      // SNI names the host without the root label's dot; a literal address sends none.
      ...(secure && !literal ? { servername: host.replace(/\.$/, '') } : {}),
    });
  }

  private post(
    transport: typeof http | typeof https,
    body: Buffer,
    options: https.RequestOptions,
  ): Promise<AttemptOutcome> {
    return new Promise<AttemptOutcome>((resolve) => {
      let answered: AttemptOutcome | undefined;
      let settled = false;
      const settle = (outcome: AttemptOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(outcome);
      };
      const request = transport.request(options);
      // One deadline for the whole attempt: before the answer's headers it is a timeout; after them the
      // outcome stands and only the reading of the body is cut short.
      const deadline = setTimeout(() => {
        request.destroy();
        settle(answered ?? { result: 'TIMEOUT' });
      }, this.responseTimeoutMs);
      request.on('error', (error: Error) => {
        settle(
          answered ??
            (error instanceof RefusedAddressError
              ? {
                  result: 'URL_NOT_ALLOWED',
                  detail: error.message,
                  host: error.host,
                  addresses: error.addresses,
                }
              : { result: 'CONNECTION_FAILED', detail: error.message }),
        );
      });
      request.on('response', (response) => {
        const retryAfter = response.headers['retry-after'];
        const outcome = outcomeOfAnswer(response.statusCode ?? 0, retryAfter, this.now());
        answered = outcome;
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_ANSWER_BODY_BYTES) {
            response.destroy();
            settle(outcome);
          }
        });
        response.on('end', () => settle(outcome));
        response.on('close', () => settle(outcome));
        response.on('error', () => settle(outcome));
      });
      request.end(body);
    });
  }

  /** Closes the kept-alive connections (on shutdown). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/**
 * A `lookup` for the agents: every address of the name, each judged by the policy; one refused address
 * refuses the connection (as it refuses the URL at create and patch), so the socket only ever connects to
 * judged addresses.
 */
function judgingLookup(policy: DestinationPolicy, resolveHost: HostResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (resolved) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const addresses =
          family === 4 || family === 6 ? resolved.filter((a) => a.family === family) : resolved;
        for (const { address } of addresses) {
          const verdict = policy.checkAddress(address);
          if (!verdict.allowed) {
            const all = resolved.map((a) => a.address);
            return callback(new RefusedAddressError(hostname, all, verdict.refusal.detail), '');
          }
        }
        if (addresses.length === 0) {
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
        }
        if (options.all) callback(null, [...addresses]);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/**
 * The outcome of a URL refused before connecting, with its host (and the literal address) when the URL
 * parses: the attempt's log line names them.
 */
function refusedUrl(text: string, detail: string): AttemptOutcome {
  const host = URL.canParse(text) ? new URL(text).hostname.replace(/^\[|\]$/g, '') : undefined;
  if (host === undefined) return { result: 'URL_NOT_ALLOWED', detail };
  return { result: 'URL_NOT_ALLOWED', detail, host, ...(isIP(host) ? { addresses: [host] } : {}) };
}
