import { API_SECURITY_HEADERS, DOCS_SECURITY_HEADERS, securityHeadersOf } from './security-headers';

describe('security headers', () => {
  it('are the headers helmet sends for a JSON API, without its legacy X- headers', () => {
    expect(API_SECURITY_HEADERS).toEqual({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
  });

  it("let Swagger UI's page load its own scripts, styles and pictures, and nothing from elsewhere", () => {
    expect(DOCS_SECURITY_HEADERS['content-security-policy']).toBe(
      "default-src 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data:;" +
        "font-src 'self' data:;connect-src 'self';object-src 'none';base-uri 'self';form-action 'self';" +
        "frame-ancestors 'none'",
    );
    expect(DOCS_SECURITY_HEADERS['x-frame-options']).toBe('DENY');
  });

  it('follow the options given: a header turned off is not sent', () => {
    const headers = securityHeadersOf({ contentSecurityPolicy: false, strictTransportSecurity: false });
    expect(headers['content-security-policy']).toBeUndefined();
    expect(headers['strict-transport-security']).toBeUndefined();
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(Object.isFrozen(headers)).toBe(true);
  });
});
