import { Injectable } from '@nestjs/common';
import { type Caller, isAdmin } from '../../platform/auth/caller';
import { DeliveryAddressesService } from '../delivery-addresses/delivery-addresses.service';
import { EventRecorder } from '../events/event-recorder.service';
import { AppException } from '../../platform/problem/app-exception';
import { Transactions } from '../../platform/database/transactions';
import { UsersService } from '../users/users.service';
import {
  draftFields,
  ExpectedVersions,
  OrderBody,
  OrderDraft,
  OrderPatch,
  patchedFields,
  replacedFields,
} from './domain/order';
import { OrderChanges } from './order-changes.service';
import { itemFieldPrefix } from '../../platform/batch/batch-outcome';
import { OrderLinePricingService } from './order-line-pricing.service';
import { OrdersRepository } from './persistence/orders.repository';

/** Creating, replacing, patching and deleting orders; each write resolves to the order's v1 body. */
@Injectable()
export class OrderEditingService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly changes: OrderChanges,
    private readonly lines: OrderLinePricingService,
    private readonly users: UsersService,
    private readonly addresses: DeliveryAddressesService,
    private readonly events: EventRecorder,
    private readonly transactions: Transactions,
  ) {}

  /**
   * The catalogue read only prices the lines (stock is reserved at confirm), before the transaction; the
   * order with its lines and total is written and returned by one statement, in the request's transaction
   * (with its Idempotency-Key's outcome). Without a `deliveryAddress` the order takes a copy of the
   * customer's default delivery address, if any (read beside the catalogue, so it adds no round trip). The
   * insert records ORDER_CREATED itself.
   */
  async create(caller: Caller, draft: OrderDraft & { customerId?: string }): Promise<OrderBody> {
    const customerId = (draft.customerId ?? caller.userId).toLowerCase();
    if (customerId !== caller.userId && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
    const [priced, deliveryAddress] = await Promise.all([
      this.lines.price(draft.items ?? [], itemFieldPrefix),
      draft.deliveryAddress ?? this.addresses.defaultAddressOf(customerId),
    ]);
    this.lines.assertStorableTotal(priced);
    if (customerId !== caller.userId) await this.users.ensureCustomer(customerId);
    const order = { customerId, ...draftFields(draft), deliveryAddress };
    const event = this.events.order('ORDER_CREATED', caller.userId);
    return this.transactions.run((tx) => this.orders.insert(tx, order, priced, event));
  }

  /** PUT: items, delivery address and note replaced; absent means removed. Only while CREATED. */
  replace(
    caller: Caller,
    orderId: string,
    draft: OrderDraft,
    expected?: ExpectedVersions,
  ): Promise<OrderBody> {
    return this.changes.run(caller, orderId, 'replace', expected, async (tx, order) => {
      const priced = await this.lines.price(draft.items ?? [], itemFieldPrefix);
      this.lines.assertStorableTotal(priced);
      await this.orders.replaceLines(tx, order.orderId, priced);
      return { fields: replacedFields(draft) };
    });
  }

  /** PATCH (merge patch) of the settable fields; null removes. */
  patch(caller: Caller, orderId: string, patch: OrderPatch, expected?: ExpectedVersions): Promise<OrderBody> {
    return this.changes.run(caller, orderId, 'patch', expected, async (_tx, order) => {
      const fields = patchedFields(order, patch);
      if ('missing' in fields) throw AppException.validation([{ field: fields.missing, code: 'REQUIRED' }]);
      return { fields };
    });
  }

  remove(caller: Caller, orderId: string, expected?: ExpectedVersions): Promise<void> {
    return this.changes.remove(caller, orderId, expected);
  }
}
