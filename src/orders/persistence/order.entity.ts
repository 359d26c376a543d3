import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { OrderStatus } from '../domain/order-status';

@Entity({ name: 'orders' })
export class OrderEntity {
  @PrimaryGeneratedColumn('uuid', { name: 'order_id' })
  orderId: string;

  @Column({ name: 'customer_id', type: 'uuid' })
  customerId: string;

  @Column({ type: 'text', default: 'CREATED' })
  status: OrderStatus;

  @Column({ type: 'char', length: 3, default: 'RUB' })
  currency: string;

  @Column({ name: 'total_amount', type: 'numeric', precision: 12, scale: 2, default: 0 })
  totalAmount: string;

  @Column({ name: 'delivery_street_name', type: 'text', nullable: true })
  deliveryStreetName: string | null;

  @Column({ name: 'delivery_zip_code', type: 'text', nullable: true })
  deliveryZipCode: string | null;

  @Column({ type: 'text', nullable: true })
  note: string | null;

  @Column({ name: 'tracking_number', type: 'text', nullable: true })
  trackingNumber: string | null;

  @Column({ type: 'text', nullable: true })
  carrier: string | null;

  @Column({ name: 'cancellation_reason', type: 'text', nullable: true })
  cancellationReason: string | null;

  @Column({ name: 'refund_reason', type: 'text', nullable: true })
  refundReason: string | null;

  @Column({ type: 'integer', default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', nullable: true })
  updatedAt: Date | null;

  @Column({ name: 'confirmed_at', type: 'timestamptz', nullable: true })
  confirmedAt: Date | null;

  @Column({ name: 'shipped_at', type: 'timestamptz', nullable: true })
  shippedAt: Date | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ name: 'cancelled_at', type: 'timestamptz', nullable: true })
  cancelledAt: Date | null;

  @Column({ name: 'refunded_at', type: 'timestamptz', nullable: true })
  refundedAt: Date | null;

  /** `<caller> <Idempotency-Key>` of the create, kept so a retry finds the order (migration 1763800014000). */
  @Column({ name: 'creation_reference', type: 'text', nullable: true })
  creationReference: string | null;
}
