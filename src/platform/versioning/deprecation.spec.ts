import { loadConfig } from '../config/app-config';
import { deprecationHeaders, isPastSunset, successorLink, successorPath } from './deprecation';

describe('deprecation', () => {
  const config = loadConfig({ LEGACY_STATUS_SUNSET: '2027-08-31T00:00:00Z' }, { name: 'x', version: '1' });
  const legacyStatus = {
    successor: '/api/v2/orders/{orderId}',
    sunset: (c: typeof config) => c.versioning.legacyStatusSunset,
  };

  it('is removed from the sunset instant on, not a millisecond before', () => {
    const sunset = Date.parse('2027-08-31T00:00:00Z');
    expect(isPastSunset(legacyStatus, config, new Date(sunset - 1))).toBe(false);
    expect(isPastSunset(legacyStatus, config, new Date(sunset))).toBe(true);
  });

  it('names the successor of the requested resource, percent-encoding what came from the path', () => {
    const id = '7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10';
    expect(successorPath(legacyStatus.successor, { orderId: id })).toBe(`/api/v2/orders/${id}`);
    expect(successorPath(legacyStatus.successor, { orderId: 'a>; rel="x", <b' })).toBe(
      '/api/v2/orders/a%3E%3B%20rel%3D%22x%22%2C%20%3Cb',
    );
    expect(successorPath(legacyStatus.successor, {})).toBe('/api/v2/orders/{orderId}');
  });

  it('sends Deprecation, an RFC 8594 HTTP-date Sunset and the successor-version Link', () => {
    expect(deprecationHeaders('/api/v2/orders/1', new Date('2027-08-31T00:00:00Z'))).toEqual({
      deprecation: 'true',
      sunset: 'Tue, 31 Aug 2027 00:00:00 GMT',
      link: '</api/v2/orders/1>; rel="successor-version"',
    });
    expect(successorLink('/api/v2/orders/1')).toBe('</api/v2/orders/1>; rel="successor-version"');
  });
});
