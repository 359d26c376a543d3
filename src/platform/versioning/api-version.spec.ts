import { PATH_METADATA, VERSION_METADATA } from '@nestjs/common/constants';
import { unversionedRouteProblem, VersionedController } from './api-version';

describe('API versions', () => {
  it('VersionedController declares the path and the version Nest routes under /api/v<N>', () => {
    @VersionedController('orders', 2)
    class OrdersV2 {}
    expect(Reflect.getMetadata(PATH_METADATA, OrdersV2)).toBe('orders');
    expect(Reflect.getMetadata(VERSION_METADATA, OrdersV2)).toBe('2');
  });

  it.each(['/api/v1/orders', '/api/v2/orders/:orderId', '/health', '/docs/openapi.json', '/apis'])(
    'serves %s',
    (url) => expect(unversionedRouteProblem(url)).toBeUndefined(),
  );

  it.each([
    ['/api/orders', 'without an API version'],
    ['/api', 'without an API version'],
    ['/api/v1', 'without an API version'],
    ['/api/v1.2/orders', 'without an API version'],
    ['/api/v01/orders', 'without an API version'],
    ['/api/2024/orders', 'without an API version'],
    ['/api/v3/orders', 'API version 3, which is not one of API_VERSIONS (1, 2)'],
  ])('refuses %s (%s)', (url, reason) => {
    expect(unversionedRouteProblem(url)).toContain(reason);
  });
});
