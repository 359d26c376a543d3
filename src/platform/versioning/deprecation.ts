import type { AppConfig } from '../config/app-config';
import type { EndpointDeprecation } from '../openapi/api-endpoint.decorator';

/**
 * The deprecation lifecycle of one endpoint (docs/versioning.md), declared once with
 * `@ApiEndpoint({ deprecated: { successor, sunset } })` and read by both halves: the document builder
 * (flag, description, and leaving the operation out after the sunset) and `DeprecationGuard` (headers
 * while it lives, 410 after). Pure functions, so both decide alike.
 */

/** Whether the endpoint is removed at `now`: from its sunset instant on. */
export function isPastSunset(deprecation: EndpointDeprecation, config: AppConfig, now: Date): boolean {
  return now.getTime() >= deprecation.sunset(config).getTime();
}

/**
 * The successor of the requested resource: `/api/v2/orders/{orderId}` with `{orderId}` replaced by the
 * request's path variable (percent-encoded, so nothing from the path can break out of the `Link` header).
 */
export function successorPath(template: string, params: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (placeholder, name: string) => {
    const value = params[name];
    return typeof value === 'string' ? encodeURIComponent(value) : placeholder;
  });
}

/** `Link` to the successor (RFC 8288), relation `successor-version` (RFC 5829). */
export function successorLink(successor: string): string {
  return `<${successor}>; rel="successor-version"`;
}

/**
 * The headers every response of a deprecated endpoint carries while it lives:
 * `Deprecation: true`, `Sunset` as an HTTP-date (RFC 8594, IMF-fixdate) and the successor `Link`.
 */
export function deprecationHeaders(successor: string, sunset: Date): Record<string, string> {
  return {
    deprecation: 'true',
    sunset: sunset.toUTCString(),
    link: successorLink(successor),
  };
}
