import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeAction, renderStateMachineMarkdown } from './order-state-machine.docs';

describe('order state machine docs', () => {
  it('docs/order-state-machine.md is generated from the table', () => {
    const doc = fs.readFileSync(path.resolve(__dirname, '../../../../docs/order-state-machine.md'), 'utf8');
    expect(doc).toBe(renderStateMachineMarkdown());
  });

  it('describes an action from its row: move, guard, effect, permission', () => {
    expect(describeAction('confirm')).toBe(
      'CREATED → CONFIRMED. Needs at least one item (409 ORDER_EMPTY). From CREATED it reserves the stock of ' +
        'every item atomically (409 INSUFFICIENT_STOCK).',
    );
    expect(describeAction('ship')).toBe(
      'CONFIRMED → SHIPPED. Needs a delivery address (409 DELIVERY_ADDRESS_MISSING). Keeps trackingNumber, ' +
        'carrier on the order. Admin only.',
    );
  });
});
