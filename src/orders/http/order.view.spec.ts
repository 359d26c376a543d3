import type { Order } from '../domain/order';
import { toJsonOutput } from '../../http/json-output';
import { outputFormViolations } from '../../http/json-output.testing';
import { toOrderV2Response } from './order-v2.view';
import { toOrderResponse } from './order.view';

const createdAt = new Date('2026-01-31T12:00:00.987Z');
const bare: Order = {
  orderId: 'o1',
  customerId: 'c1',
  status: 'CREATED',
  currency: 'RUB',
  totalAmount: '2500.00',
  version: 1,
  createdAt,
  items: [],
};
const full: Order = {
  ...bare,
  status: 'REFUNDED',
  updatedAt: new Date('2026-02-01T00:00:00.001Z'),
  confirmedAt: new Date('2026-02-01T00:00:00Z'),
  shippedAt: new Date('2026-02-02T00:00:00Z'),
  deliveredAt: new Date('2026-02-03T00:00:00Z'),
  refundedAt: new Date('2026-02-04T23:59:59.999Z'),
  deliveryAddress: { streetName: 'Tverskaya 1', zipCode: '125009' },
  note: 'ring twice',
  trackingNumber: 'TRK-1',
  carrier: 'CDEK',
  refundReason: 'broken',
  items: [
    { itemId: 'i1', productId: 'p1', productName: 'Kettle', unitPrice: '1999.90', quantity: 1 },
    { itemId: 'i2', productId: 'p2', productName: 'Mug', unitPrice: '250.05', quantity: 2 },
  ],
};
// Fields a stored order may carry without a value (the rules leave them out, whatever the view gets),
// nested ones included: the columns allow an empty street, zip code or product name.
const emptyish = {
  ...bare,
  note: '',
  carrier: null,
  deliveryAddress: { streetName: '', zipCode: '125009' },
  items: [{ itemId: 'i1', productId: 'p1', productName: '', unitPrice: '1.00', quantity: 1 }],
} as unknown as Order;

/** The body as the generic rules would have made it from the same fields (what views sent before). */
function throughTheRules(body: object): unknown {
  return toJsonOutput(JSON.parse(JSON.stringify(body, (_key, value: unknown) => value ?? null)));
}

describe.each([
  ['v1', toOrderResponse],
  ['v2', toOrderV2Response],
])('the %s order view, built in output form', (_version, view) => {
  it.each([
    ['a new order', bare],
    ['an order with every field', full],
    ['an order with empty fields', emptyish],
  ])('breaks none of the JSON output rules for %s', (_case, order) => {
    expect(outputFormViolations(view(order))).toEqual([]);
  });

  it.each([
    ['a new order', bare],
    ['an order with every field', full],
    ['an order with empty fields', emptyish],
  ])('serializes %s to the bytes the rules would have made', (_case, order) => {
    const body = view(order);
    expect(JSON.stringify(body)).toBe(JSON.stringify(throughTheRules(body)));
  });

  it('is passed through by the rules untouched (no second copy)', () => {
    const body = view(full);
    expect(toJsonOutput(body)).toBe(body);
    expect((toJsonOutput({ content: [body] }) as { content: unknown[] }).content[0]).toBe(body);
  });

  it('serves time stamps as whole-second UTC text and leaves out what has no value, nested fields too', () => {
    const body = JSON.parse(JSON.stringify(view(full))) as Record<string, unknown>;
    expect(body).toMatchObject({
      createdAt: '2026-01-31T12:00:00Z',
      refundedAt: '2026-02-04T23:59:59Z',
      updatedAt: '2026-02-01T00:00:00Z',
    });
    const empty = JSON.parse(JSON.stringify(view(emptyish))) as Record<string, unknown>;
    expect(empty.deliveryAddress).toEqual({ zipCode: '125009' });
    expect((empty.items as Array<Record<string, unknown>>)[0]).not.toHaveProperty('productName');
    expect(JSON.stringify(view(emptyish))).not.toMatch(/note|carrier|streetName|productName|null|""/);
  });
});
