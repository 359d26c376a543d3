import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { prepared, PooledStatements } from '../../database/pooled-statements';
import type { AddressFields, DeliveryAddress } from '../domain/delivery-address';

/**
 * Every statement on `delivery_addresses`. Every read names the user, so another user's address is simply
 * not found. Writes take the EntityManager of the service's transaction.
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
const READ_DEFAULT = prepared(
  'delivery-addresses.read-default',
  `SELECT ${COLUMNS} FROM delivery_addresses WHERE user_id = $1 AND is_default`,
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

@Injectable()
export class DeliveryAddressesRepository {
  constructor(private readonly pooled: PooledStatements) {}

  /**
   * Serializes the changes of one user's address book until the transaction ends, so "is this the first
   * address" and "which one is newest" are answered and acted on without a concurrent writer in between.
   */
  async lockAddressBook(db: EntityManager, userId: string): Promise<void> {
    await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADDRESS_BOOK_LOCK, userId]);
  }

  /** The user's address, in the caller's transaction when given. */
  async read(userId: string, addressId: string, db?: EntityManager): Promise<DeliveryAddress | undefined> {
    const text = `SELECT ${COLUMNS} FROM delivery_addresses WHERE user_id = $1 AND address_id = $2`;
    const rows = db
      ? ((await db.query(text, [userId, addressId])) as AddressRow[])
      : await this.pooled.rows<AddressRow>(text, [userId, addressId]);
    return rows[0] ? toAddress(rows[0]) : undefined;
  }

  async readDefault(userId: string): Promise<DeliveryAddress | undefined> {
    const [row] = await this.pooled.rows<AddressRow>(READ_DEFAULT, [userId]);
    return row ? toAddress(row) : undefined;
  }

  /** A page of the user's addresses, newest first, with the total. */
  async page(
    userId: string,
    window: { limit: number; offset: number },
  ): Promise<{ addresses: DeliveryAddress[]; total: number }> {
    const [rows, [{ total }]] = await Promise.all([
      this.pooled.rows<AddressRow>(
        `SELECT ${COLUMNS} FROM delivery_addresses WHERE user_id = $1
         ORDER BY created_at DESC, address_id DESC LIMIT $2 OFFSET $3`,
        [userId, window.limit, window.offset],
      ),
      this.pooled.rows<{ total: string }>(
        'SELECT count(*) AS total FROM delivery_addresses WHERE user_id = $1',
        [userId],
      ),
    ]);
    return { addresses: rows.map(toAddress), total: Number(total) };
  }

  async hasAny(db: EntityManager, userId: string): Promise<boolean> {
    const rows: unknown[] = await db.query('SELECT 1 FROM delivery_addresses WHERE user_id = $1 LIMIT 1', [
      userId,
    ]);
    return rows.length > 0;
  }

  async insert(
    db: EntityManager,
    userId: string,
    fields: AddressFields,
    isDefault: boolean,
  ): Promise<DeliveryAddress> {
    const rows: AddressRow[] = await db.query(
      `INSERT INTO delivery_addresses (user_id, street_name, zip_code, is_default) VALUES ($1, $2, $3, $4)
       RETURNING ${COLUMNS}`,
      [userId, fields.streetName, fields.zipCode, isDefault],
    );
    return toAddress(rows[0]);
  }

  /** Writes the fields of an address and whether it is the default; returns it as stored. */
  async update(
    db: EntityManager,
    addressId: string,
    fields: AddressFields & { isDefault: boolean },
  ): Promise<DeliveryAddress> {
    // TypeORM answers an UPDATE with [rows, affected row count].
    const [rows] = (await db.query(
      `UPDATE delivery_addresses SET street_name = $2, zip_code = $3, is_default = $4 WHERE address_id = $1
       RETURNING ${COLUMNS}`,
      [addressId, fields.streetName, fields.zipCode, fields.isDefault],
    )) as [AddressRow[], number];
    return toAddress(rows[0]);
  }

  /** Makes no address of the user the default (before another one becomes it: one statement each). */
  async clearDefault(db: EntityManager, userId: string): Promise<void> {
    await db.query('UPDATE delivery_addresses SET is_default = false WHERE user_id = $1 AND is_default', [
      userId,
    ]);
  }

  /** Deletes an address; resolves to it as it was, or undefined when the user has no such address. */
  async delete(db: EntityManager, userId: string, addressId: string): Promise<DeliveryAddress | undefined> {
    // TypeORM answers a DELETE with [rows, affected row count].
    const [rows] = (await db.query(
      `DELETE FROM delivery_addresses WHERE user_id = $1 AND address_id = $2 RETURNING ${COLUMNS}`,
      [userId, addressId],
    )) as [AddressRow[], number];
    return rows[0] ? toAddress(rows[0]) : undefined;
  }

  /** Makes the user's newest address the default (none when the user has no address left). */
  async makeNewestDefault(db: EntityManager, userId: string): Promise<void> {
    await db.query(
      `UPDATE delivery_addresses SET is_default = true
       WHERE address_id = (SELECT address_id FROM delivery_addresses WHERE user_id = $1
                           ORDER BY created_at DESC, address_id DESC LIMIT 1)`,
      [userId],
    );
  }
}
