import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, replicaRead, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { AddressFields, DeliveryAddress } from '../domain/delivery-address';

/**
 * Every statement on `delivery_addresses`. Every read names the user, so another user's address is simply
 * not found. Writes take the service's transaction.
 */

interface AddressRow {
  address_id: string;
  user_id: string;
  street_name: string;
  zip_code: string;
  is_default: boolean;
  created_at: Date;
}

const COLUMNS = 'address_id, user_id, street_name, zip_code, is_default, created_at';

/** Read by every order created without an address: a prepared statement. */
const READ_DEFAULT = read(
  `SELECT ${COLUMNS} FROM delivery_addresses WHERE user_id = $1 AND is_default`,
  'delivery-addresses.read-default',
);

const toAddress = (row: AddressRow): DeliveryAddress => ({
  addressId: row.address_id,
  userId: row.user_id,
  streetName: row.street_name,
  zipCode: row.zip_code,
  isDefault: row.is_default,
  createdAt: row.created_at,
});

/** First key of the per-user advisory lock (the second is the user): "ADDR", apart from other locks. */
const ADDRESS_BOOK_LOCK = 0x41444452;

const LOCK_ADDRESS_BOOK = write('SELECT pg_advisory_xact_lock($1, hashtext($2))');
const READ_ADDRESS = read(`SELECT ${COLUMNS} FROM delivery_addresses WHERE user_id = $1 AND address_id = $2`);
const PAGE = replicaRead(
  `SELECT ${COLUMNS} FROM delivery_addresses WHERE user_id = $1
   ORDER BY created_at DESC, address_id DESC LIMIT $2 OFFSET $3`,
);
const COUNT = replicaRead('SELECT count(*) AS total FROM delivery_addresses WHERE user_id = $1');
const HAS_ANY = read('SELECT 1 FROM delivery_addresses WHERE user_id = $1 LIMIT 1');
const INSERT_ADDRESS = write(
  `INSERT INTO delivery_addresses (user_id, street_name, zip_code, is_default) VALUES ($1, $2, $3, $4)
   RETURNING ${COLUMNS}`,
);
const UPDATE_ADDRESS = write(
  `UPDATE delivery_addresses SET street_name = $2, zip_code = $3, is_default = $4 WHERE address_id = $1
   RETURNING ${COLUMNS}`,
);
const CLEAR_DEFAULT = write(
  'UPDATE delivery_addresses SET is_default = false WHERE user_id = $1 AND is_default',
);
const DELETE_ADDRESS = write(
  `DELETE FROM delivery_addresses WHERE user_id = $1 AND address_id = $2 RETURNING ${COLUMNS}`,
);
const MAKE_NEWEST_DEFAULT = write(
  `UPDATE delivery_addresses SET is_default = true
   WHERE address_id = (SELECT address_id FROM delivery_addresses WHERE user_id = $1
                       ORDER BY created_at DESC, address_id DESC LIMIT 1)`,
);

@Injectable()
export class DeliveryAddressesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Serializes the changes of one user's address book until the transaction ends, so "is this the first
   * address" and "which one is newest" are answered and acted on without a concurrent writer in between.
   */
  async lockAddressBook(tx: Tx, userId: string): Promise<void> {
    await tx.rows(LOCK_ADDRESS_BOOK, [ADDRESS_BOOK_LOCK, userId]);
  }

  /** The user's address (in the caller's transaction when it has begun one, as every read). */
  async read(userId: string, addressId: string): Promise<DeliveryAddress | undefined> {
    const rows = await this.sql.rows<AddressRow>(READ_ADDRESS, [userId, addressId]);
    return rows[0] ? toAddress(rows[0]) : undefined;
  }

  async readDefault(userId: string): Promise<DeliveryAddress | undefined> {
    const [row] = await this.sql.rows<AddressRow>(READ_DEFAULT, [userId]);
    return row ? toAddress(row) : undefined;
  }

  /** A page of the user's addresses, newest first, with the total. */
  async page(
    userId: string,
    window: { limit: number; offset: number },
  ): Promise<{ addresses: DeliveryAddress[]; total: number }> {
    const [rows, [{ total }]] = await Promise.all([
      this.sql.rows<AddressRow>(PAGE, [userId, window.limit, window.offset]),
      this.sql.rows<{ total: string }>(COUNT, [userId]),
    ]);
    return { addresses: rows.map(toAddress), total: Number(total) };
  }

  async hasAny(tx: Tx, userId: string): Promise<boolean> {
    const rows = await tx.rows(HAS_ANY, [userId]);
    return rows.length > 0;
  }

  async insert(tx: Tx, userId: string, fields: AddressFields, isDefault: boolean): Promise<DeliveryAddress> {
    const rows = await tx.rows<AddressRow>(INSERT_ADDRESS, [
      userId,
      fields.streetName,
      fields.zipCode,
      isDefault,
    ]);
    return toAddress(rows[0]);
  }

  /** Writes the fields of an address and whether it is the default; returns it as stored. */
  async update(
    tx: Tx,
    addressId: string,
    fields: AddressFields & { isDefault: boolean },
  ): Promise<DeliveryAddress> {
    const rows = await tx.rows<AddressRow>(UPDATE_ADDRESS, [
      addressId,
      fields.streetName,
      fields.zipCode,
      fields.isDefault,
    ]);
    return toAddress(rows[0]);
  }

  /** Makes no address of the user the default (before another one becomes it: one statement each). */
  async clearDefault(tx: Tx, userId: string): Promise<void> {
    await tx.rowCount(CLEAR_DEFAULT, [userId]);
  }

  /** Deletes an address; resolves to it as it was, or undefined when the user has no such address. */
  async delete(tx: Tx, userId: string, addressId: string): Promise<DeliveryAddress | undefined> {
    const rows = await tx.rows<AddressRow>(DELETE_ADDRESS, [userId, addressId]);
    return rows[0] ? toAddress(rows[0]) : undefined;
  }

  /** Makes the user's newest address the default (none when the user has no address left). */
  async makeNewestDefault(tx: Tx, userId: string): Promise<void> {
    await tx.rowCount(MAKE_NEWEST_DEFAULT, [userId]);
  }
}
