import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The table for `npm run migration:generate`; statements are in DeliveryAddressesRepository. */
@Entity({ name: 'delivery_addresses' })
export class DeliveryAddressEntity {
  @PrimaryGeneratedColumn('uuid', { name: 'address_id' })
  addressId: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ name: 'street_name', type: 'text' })
  streetName: string;

  @Column({ name: 'zip_code', type: 'text' })
  zipCode: string;

  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}
