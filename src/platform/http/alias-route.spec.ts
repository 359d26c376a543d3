import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { ALIAS_ROUTE, AliasRoute, AliasRouteOrder } from './alias-route';

describe('alias routes', () => {
  it('AliasRoute maps the method and path and records what the word selects', () => {
    class Orders {
      @AliasRoute('GET', 'latest', { selects: "the caller's most recent order" })
      latest(): void {}
    }
    const handler = Object.getOwnPropertyDescriptor(Orders.prototype, 'latest')?.value as object;
    expect(Reflect.getMetadata(PATH_METADATA, handler)).toBe('latest');
    expect(Reflect.getMetadata(METHOD_METADATA, handler)).toBe(RequestMethod.GET);
    expect(Reflect.getMetadata(ALIAS_ROUTE, handler)).toEqual({
      word: 'latest',
      selects: "the caller's most recent order",
    });
  });

  it('takes aliases registered before their parametric twins, and other routes in any order', () => {
    const order = new AliasRouteOrder();
    const routes: Array<[string, string]> = [
      ['GET', '/api/v1/orders/latest'],
      ['GET', '/api/v1/orders/:orderId'],
      ['GET', '/api/v1/users/me'],
      ['PUT', '/api/v1/users/me'],
      ['GET', '/api/v1/users/:userId'],
      ['GET', '/api/v1/users/me/settings'], // no `/users/:userId/settings` could take it
      ['GET', '/api/v1/delivery-addresses/:addressId'],
      ['POST', '/api/v1/delivery-addresses/default/anything'], // another method and depth
      ['GET', '/health'],
      ['GET', '/me'], // not a business route
    ];
    for (const [method, url] of routes) expect(order.problem(method, url)).toBeUndefined();
  });

  it('refuses an alias route registered after a parametric route that matches it', () => {
    const order = new AliasRouteOrder();
    expect(order.problem('GET', '/api/v1/delivery-addresses/:addressId')).toBeUndefined();
    expect(order.problem('GET', '/api/v1/delivery-addresses/default')).toBe(
      'GET /api/v1/delivery-addresses/default: the alias route is registered after GET ' +
        '/api/v1/delivery-addresses/:addressId, which matches it too; declare the alias route above the ' +
        'parametric one',
    );
  });

  it('refuses `me` anywhere but right after users/', () => {
    const order = new AliasRouteOrder();
    expect(order.problem('GET', '/api/v1/me')).toContain('the alias "me" stands only right after "users/"');
    expect(order.problem('GET', '/api/v1/orders/me')).toContain('right after "users/"');
  });
});
