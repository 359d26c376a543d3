import { Injectable, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { Caller, isAdmin } from '../auth/caller';
import { entityTag } from '../http/conditional-requests';
import { OffsetPage, offsetOf, offsetPage } from '../paging/offset-page';
import { AppException } from '../problem/app-exception';
import { ProductEntity } from '../products/product.entity';
import { UsersService } from '../users/users.service';
import {
  assertValidStateMachine,
  failedGuard,
  GUARD_ERRORS,
  isAllowed,
  ORDER_TRANSITIONS,
  OrderAction,
  OrderEdit,
  TransitionTimestamp,
} from './domain/order-state-machine';
import { OrderItemEntity } from './order-item.entity';
import { readLatestOrder, readOrder } from './order-reader';
import { insertOrder } from './order-writer';
import { OrderLinesPricer, PricedLine, RequestedLine } from './order-lines';
import { OrderRecord } from './order.view';
import { OrderEntity } from './order.entity';

/** Called with the order's current ETag before a change; throws when the client's If-Match disagrees. */
export type Precondition = (currentEtag: string) => void;
const NO_PRECONDITION: Precondition = () => undefined;

export interface DeliveryAddress {
  streetName: string;
  zipCode: string;
}

export interface OrderDraft {
  items?: RequestedLine[];
  deliveryAddress?: DeliveryAddress;
  note?: string;
}

/** A merge patch: `undefined` leaves a field alone, `null` removes it. */
export interface OrderPatch {
  note?: string | null;
  deliveryAddress?: { streetName?: string | null; zipCode?: string | null } | null;
}

export interface ActionParams {
  reason?: string;
  trackingNumber?: string;
  carrier?: string;
}

const STAMP_COLUMNS: Record<TransitionTimestamp, keyof OrderEntity> = {
  confirmedAt: 'confirmedAt',
  shippedAt: 'shippedAt',
  deliveredAt: 'deliveredAt',
  cancelledAt: 'cancelledAt',
  refundedAt: 'refundedAt',
};

export function orderEtag(order: OrderEntity): string {
  return entityTag(order.orderId, order.version);
}

/**
 * The rules of orders: ownership, the state machine, stock reservation, totals. Every change runs in one
 * transaction with the order row locked (`FOR UPDATE`), so concurrent writers serialize and If-Match is
 * checked against the version that will be changed.
 */
@Injectable()
export class OrdersService implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lines: OrderLinesPricer,
    private readonly users: UsersService,
  ) {}

  onModuleInit(): void {
    assertValidStateMachine();
  }

  async get(caller: Caller, orderId: string): Promise<OrderRecord> {
    const record = await readOrder(this.dataSource.manager, orderId);
    if (!record) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    this.assertVisible(caller, record.order);
    return record;
  }

  /** The `latest` alias: the caller's most recent order. */
  async latest(caller: Caller): Promise<OrderRecord> {
    const record = await readLatestOrder(this.dataSource.manager, caller.userId);
    if (!record) throw new AppException('ORDER_NOT_FOUND', { args: { orderId: 'latest' } });
    return record;
  }

  async create(caller: Caller, draft: OrderDraft & { customerId?: string }): Promise<OrderRecord> {
    const customerId = (draft.customerId ?? caller.userId).toLowerCase();
    if (customerId !== caller.userId && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
    // No transaction: the catalogue read only prices the lines (stock is reserved at confirm), and the
    // order with its lines and total is written and returned by one statement, atomic by itself.
    const manager = this.dataSource.manager;
    const priced = await this.lines.price(manager, draft.items ?? [], (i) => `items[${i}].`);
    if (customerId !== caller.userId) await this.users.ensureCustomer(manager, customerId);
    return insertOrder(
      manager,
      {
        customerId,
        deliveryStreetName: draft.deliveryAddress?.streetName ?? null,
        deliveryZipCode: draft.deliveryAddress?.zipCode ?? null,
        note: draft.note ?? null,
      },
      priced,
    );
  }

  async replace(
    caller: Caller,
    orderId: string,
    draft: OrderDraft,
    precondition = NO_PRECONDITION,
  ): Promise<OrderRecord> {
    return this.change(caller, orderId, 'replace', precondition, async (manager, order) => {
      const priced = await this.lines.price(manager, draft.items ?? [], (i) => `items[${i}].`);
      await manager.delete(OrderItemEntity, { orderId: order.orderId });
      await this.insertLines(manager, order.orderId, priced);
      await manager.update(OrderEntity, order.orderId, {
        deliveryStreetName: draft.deliveryAddress?.streetName ?? null,
        deliveryZipCode: draft.deliveryAddress?.zipCode ?? null,
        note: draft.note ?? null,
      });
    });
  }

  async patch(
    caller: Caller,
    orderId: string,
    patch: OrderPatch,
    precondition = NO_PRECONDITION,
  ): Promise<OrderRecord> {
    return this.change(caller, orderId, 'patch', precondition, async (manager, order) => {
      const changes: Partial<OrderEntity> = {};
      if (patch.note !== undefined) changes.note = patch.note;
      if (patch.deliveryAddress === null) {
        changes.deliveryStreetName = null;
        changes.deliveryZipCode = null;
      } else if (patch.deliveryAddress !== undefined) {
        const street =
          patch.deliveryAddress.streetName === undefined
            ? order.deliveryStreetName
            : patch.deliveryAddress.streetName;
        const zip =
          patch.deliveryAddress.zipCode === undefined ? order.deliveryZipCode : patch.deliveryAddress.zipCode;
        if ((street === null) !== (zip === null)) {
          // An address is both parts or nothing: name the part that is missing.
          throw AppException.validation([
            {
              field: street === null ? 'deliveryAddress.streetName' : 'deliveryAddress.zipCode',
              code: 'REQUIRED',
            },
          ]);
        }
        changes.deliveryStreetName = street;
        changes.deliveryZipCode = zip;
      }
      if (Object.keys(changes).length > 0) await manager.update(OrderEntity, order.orderId, changes);
    });
  }

  async remove(caller: Caller, orderId: string, precondition = NO_PRECONDITION): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const order = await this.load(manager, caller, orderId, true);
      precondition(orderEtag(order));
      this.assertAllowed('delete', order);
      await manager.delete(OrderEntity, order.orderId);
    });
  }

  /** Runs an action of the state machine: permission, state, guard, effects and stamp in one transaction. */
  async act(
    caller: Caller,
    orderId: string,
    action: OrderAction,
    params: ActionParams = {},
    precondition = NO_PRECONDITION,
  ): Promise<OrderRecord> {
    const transition = ORDER_TRANSITIONS[action];
    if (transition.permission === 'ADMIN' && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
    return this.dataSource.transaction(async (manager) => {
      const order = await this.load(manager, caller, orderId, true);
      precondition(orderEtag(order));
      this.assertAllowed(action, order);
      const itemCount = await manager.count(OrderItemEntity, { where: { orderId: order.orderId } });
      const failed = failedGuard(transition, {
        itemCount,
        hasDeliveryAddress: order.deliveryStreetName !== null,
      });
      if (failed) throw new AppException(GUARD_ERRORS[failed]);

      for (const effect of transition.effects[order.status] ?? []) {
        if (effect === 'RESERVE_STOCK') await this.reserveStock(manager, order.orderId);
        if (effect === 'RELEASE_STOCK') await this.releaseStock(manager, order.orderId);
      }
      // The database clock stamps every change, so timestamps of one order are mutually consistent.
      const changes: Record<string, unknown> = {
        status: transition.to,
        [STAMP_COLUMNS[transition.stamps]]: () => 'now()',
      };
      if (action === 'cancel') changes.cancellationReason = params.reason ?? null;
      if (action === 'refund') changes.refundReason = params.reason ?? null;
      if (action === 'ship') {
        changes.trackingNumber = params.trackingNumber ?? null;
        changes.carrier = params.carrier ?? null;
      }
      await manager.update(OrderEntity, order.orderId, changes);
      return this.reload(manager, order.orderId, { touch: true });
    });
  }

  async listItems(
    caller: Caller,
    orderId: string,
    query: { page: number; size: number },
  ): Promise<OffsetPage<OrderItemEntity>> {
    const manager = this.dataSource.manager;
    await this.load(manager, caller, orderId, false);
    const [items, total] = await manager.findAndCount(OrderItemEntity, {
      where: { orderId },
      order: { createdAt: 'ASC', itemId: 'ASC' },
      skip: offsetOf(query),
      take: query.size,
    });
    return offsetPage(items, total, query);
  }

  async getItem(caller: Caller, orderId: string, itemId: string): Promise<OrderItemEntity> {
    await this.load(this.dataSource.manager, caller, orderId, false);
    const item = await this.dataSource.manager.findOne(OrderItemEntity, { where: { orderId, itemId } });
    if (!item) throw new AppException('ITEM_NOT_FOUND', { args: { itemId } });
    return item;
  }

  async addItem(
    caller: Caller,
    orderId: string,
    line: RequestedLine,
    precondition = NO_PRECONDITION,
  ): Promise<{ record: OrderRecord; item: OrderItemEntity }> {
    let itemId = '';
    const record = await this.change(caller, orderId, 'changeItems', precondition, async (manager, order) => {
      const existing = await manager.find(OrderItemEntity, {
        where: { orderId: order.orderId, productId: line.productId },
      });
      // Stock is checked for what the order would hold of this product after the change.
      const already = existing.reduce((sum, i) => sum + i.quantity, 0);
      const [checked] = await this.lines.price(
        manager,
        [{ ...line, quantity: already + line.quantity }],
        () => '',
      );
      [itemId] = await this.insertLines(manager, order.orderId, [{ ...checked, quantity: line.quantity }]);
    });
    const item = record.items.find((i) => i.itemId === itemId) as OrderItemEntity;
    return { record, item };
  }

  async removeItem(
    caller: Caller,
    orderId: string,
    itemId: string,
    precondition = NO_PRECONDITION,
  ): Promise<OrderRecord> {
    return this.change(caller, orderId, 'changeItems', precondition, async (manager, order) => {
      const result = await manager.delete(OrderItemEntity, { orderId: order.orderId, itemId });
      if (!result.affected) throw new AppException('ITEM_NOT_FOUND', { args: { itemId } });
    });
  }

  /** Status of an order for the deprecated endpoint. */
  async statusOf(caller: Caller, orderId: string): Promise<string> {
    return (await this.load(this.dataSource.manager, caller, orderId, false)).status;
  }

  /** Locks the order, checks precondition and state, applies the change, recomputes the total, bumps the version. */
  private change(
    caller: Caller,
    orderId: string,
    edit: OrderEdit,
    precondition: Precondition,
    apply: (manager: EntityManager, order: OrderEntity) => Promise<void>,
  ): Promise<OrderRecord> {
    return this.dataSource.transaction(async (manager) => {
      const order = await this.load(manager, caller, orderId, true);
      precondition(orderEtag(order));
      this.assertAllowed(edit, order);
      await apply(manager, order);
      return this.reload(manager, order.orderId, { touch: true });
    });
  }

  private assertAllowed(operation: OrderAction | OrderEdit, order: OrderEntity): void {
    if (!isAllowed(operation, order.status)) {
      throw new AppException('INVALID_ORDER_STATE', { args: { status: order.status } });
    }
  }

  private async load(
    manager: EntityManager,
    caller: Caller,
    orderId: string,
    lock: boolean,
  ): Promise<OrderEntity> {
    const order = await manager.findOne(OrderEntity, {
      where: { orderId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!order) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
    this.assertVisible(caller, order);
    return order;
  }

  private assertVisible(caller: Caller, order: OrderEntity): void {
    if (order.customerId !== caller.userId && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
  }

  /** Recomputes the total from the lines and, for changes, bumps version and updatedAt. */
  private async reload(
    manager: EntityManager,
    orderId: string,
    { touch }: { touch: boolean },
  ): Promise<OrderRecord> {
    await manager.query(
      `UPDATE orders SET total_amount = COALESCE(
         (SELECT sum(unit_price * quantity) FROM order_items WHERE order_id = $1), 0)
       ${touch ? ', version = version + 1, updated_at = now()' : ''}
       WHERE order_id = $1`,
      [orderId],
    );
    return (await readOrder(manager, orderId)) as OrderRecord;
  }

  private async insertLines(manager: EntityManager, orderId: string, lines: PricedLine[]): Promise<string[]> {
    if (lines.length === 0) return [];
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(OrderItemEntity)
      .values(lines.map((l) => ({ orderId, ...l })))
      .returning(['itemId'])
      .execute();
    return (result.raw as Array<{ item_id: string }>).map((r) => r.item_id);
  }

  /**
   * One conditional update per product, in product order so concurrent confirms never deadlock; a product
   * short of stock fails the whole confirm (the transaction rolls back the rows already reserved).
   */
  private async reserveStock(manager: EntityManager, orderId: string): Promise<void> {
    for (const { productId, quantity } of await this.quantitiesByProduct(manager, orderId)) {
      const result = await manager
        .createQueryBuilder()
        .update(ProductEntity)
        .set({ stock: () => 'stock - :quantity', version: () => 'version + 1', updatedAt: () => 'now()' })
        .where('product_id = :productId AND stock >= :quantity', { productId, quantity })
        .execute();
      if (!result.affected) throw new AppException('INSUFFICIENT_STOCK');
    }
  }

  private async releaseStock(manager: EntityManager, orderId: string): Promise<void> {
    for (const { productId, quantity } of await this.quantitiesByProduct(manager, orderId)) {
      await manager
        .createQueryBuilder()
        .update(ProductEntity)
        .set({ stock: () => 'stock + :quantity', version: () => 'version + 1', updatedAt: () => 'now()' })
        .where('product_id = :productId', { productId, quantity })
        .execute();
    }
  }

  private async quantitiesByProduct(
    manager: EntityManager,
    orderId: string,
  ): Promise<Array<{ productId: string; quantity: number }>> {
    const rows: Array<{ product_id: string; quantity: number }> = await manager.query(
      `SELECT product_id, sum(quantity)::int AS quantity FROM order_items WHERE order_id = $1
       GROUP BY product_id ORDER BY product_id`,
      [orderId],
    );
    return rows.map((r) => ({ productId: r.product_id, quantity: r.quantity }));
  }

  /**
   * Writes one new order of the caller per line, each holding that one line already priced by
   * OrderLinesPricer, inside `manager`'s transaction and in one statement however many lines there are
   * (the order batch). The total is unit price × quantity, as reload() computes it; `clock_timestamp()`
   * stamps the orders in line order. Resolves to the order ids in line order.
   */
  async insertSingleLineOrders(
    manager: EntityManager,
    caller: Caller,
    lines: PricedLine[],
  ): Promise<string[]> {
    const orderIds = lines.map(() => randomUUID());
    await manager.query(
      `WITH line AS (
         SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::numeric[], $6::int[]) WITH ORDINALITY
           AS l(order_id, product_id, product_name, unit_price, quantity, position)),
       new_order AS (
         INSERT INTO orders (order_id, customer_id, total_amount, created_at)
         SELECT order_id, $1, unit_price * quantity, clock_timestamp() FROM line ORDER BY position)
       INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity)
       SELECT order_id, product_id, product_name, unit_price, quantity FROM line ORDER BY position`,
      [
        caller.userId,
        orderIds,
        lines.map((l) => l.productId),
        lines.map((l) => l.productName),
        lines.map((l) => l.unitPrice),
        lines.map((l) => l.quantity),
      ],
    );
    return orderIds;
  }

  /**
   * Adds several lines to a CREATED order, all or none, in one transaction (the atomic items batch): the
   * catalogue is read once for all lines and the lines are written with one statement. As in addItem(),
   * stock is checked for what the order would hold of each product afterwards. Any line failing its check
   * fails the whole change: 400 VALIDATION_ERROR with violations on `items[i].…`. Item ids in line order.
   */
  async addItems(
    caller: Caller,
    orderId: string,
    lines: RequestedLine[],
    precondition = NO_PRECONDITION,
  ): Promise<{ record: OrderRecord; itemIds: string[] }> {
    let itemIds: string[] = [];
    const record = await this.change(caller, orderId, 'changeItems', precondition, async (manager, order) => {
      const held = new Map(
        (await this.quantitiesByProduct(manager, order.orderId)).map((q) => [q.productId, q.quantity]),
      );
      // The first new line of a product also carries what the order holds of it; the pricer makes the
      // following lines of that product share what stock is left.
      const wanted = lines.map((line) => {
        const productId = line.productId.toLowerCase();
        const already = held.get(productId) ?? 0;
        held.delete(productId);
        return { productId, quantity: already + line.quantity };
      });
      const priced = await this.lines.price(manager, wanted, (i) => `items[${i}].`);
      itemIds = await this.insertLines(
        manager,
        order.orderId,
        priced.map((line, i) => ({ ...line, quantity: lines[i].quantity })),
      );
    });
    return { record, itemIds };
  }
}
