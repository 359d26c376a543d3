import type { Order } from '../domain/order';
import { toMoneyV2, toOrderV2Response } from './order-v2.view';

describe('the v2 order view', () => {
  it.each([
    ['12.50', '12.50'],
    ['0.00', '0.00'],
    ['1999.9', '1999.90'],
    ['7', '7.00'],
    ['9999999999.99', '9999999999.99'],
  ])('serves %s as the amount %s', (stored, served) => {
    expect(toMoneyV2(stored, 'RUB')).toEqual({ amount: served, currency: 'RUB' });
  });

  it.each(['', '1.234', '-1.00', '1e3', 'NaN', '1,50'])('refuses %j, which is no stored amount', (stored) => {
    expect(() => toMoneyV2(stored, 'RUB')).toThrow('not a money amount');
  });

  it('replaces totalAmount with total and unit prices with money, keeping every other field', () => {
    const createdAt = new Date('2026-01-31T12:00:00Z');
    const order: Order = {
      orderId: 'o1',
      customerId: 'c1',
      status: 'CREATED',
      currency: 'RUB',
      totalAmount: '2500.00',
      version: 1,
      createdAt,
      note: 'ring twice',
      items: [
        {
          itemId: 'i1',
          productId: 'p1',
          productName: 'Kettle',
          unitPrice: '1999.90',
          quantity: 1,
        },
        { itemId: 'i2', productId: 'p2', productName: 'Mug', unitPrice: '250.05', quantity: 2 },
      ],
    };
    const v2 = toOrderV2Response(order);
    expect(v2).not.toHaveProperty('totalAmount');
    expect(v2).toMatchObject({
      orderId: 'o1',
      total: { amount: '2500.00', currency: 'RUB' },
      currency: 'RUB',
      note: 'ring twice',
      items: [
        { itemId: 'i1', unitPrice: { amount: '1999.90', currency: 'RUB' } },
        { itemId: 'i2', unitPrice: { amount: '250.05', currency: 'RUB' } },
      ],
    });
  });
});
