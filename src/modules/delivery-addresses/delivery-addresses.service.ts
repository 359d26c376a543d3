import { Injectable } from '@nestjs/common';
import { OffsetPage, offsetOf, offsetPage } from '../../platform/paging/offset-page';
import { AppException } from '../../platform/problem/app-exception';
import {
  type AddressChanges,
  type AddressFields,
  type DeliveryAddress,
  defaultMove,
  newAddressIsDefault,
} from './domain/delivery-address';
import { DeliveryAddressesRepository } from './persistence/delivery-addresses.repository';
import { Transactions } from '../../platform/database/transactions';

/**
 * The caller's delivery addresses (caller-scoped: an admin has no access to anyone else's either) and
 * their one default. Each change runs in a transaction holding the user's address-book lock; the partial
 * unique index is the last word on "one default". Other modules use `defaultAddressOf`.
 */
@Injectable()
export class DeliveryAddressesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly addresses: DeliveryAddressesRepository,
  ) {}

  async list(userId: string, paging: { page: number; size: number }): Promise<OffsetPage<DeliveryAddress>> {
    const { addresses, total } = await this.addresses.page(userId, {
      limit: paging.size,
      offset: offsetOf(paging),
    });
    return offsetPage(addresses, total, paging);
  }

  async get(userId: string, addressId: string): Promise<DeliveryAddress> {
    const address = await this.addresses.read(userId, addressId);
    if (!address) throw notFound(addressId);
    return address;
  }

  /** The `default` alias: the user's default address; 404 ADDRESS_NOT_FOUND when they have none. */
  async getDefault(userId: string): Promise<DeliveryAddress> {
    const address = await this.addresses.readDefault(userId);
    if (!address)
      throw new AppException('ADDRESS_NOT_FOUND', { detailKey: 'errors.ADDRESS_NOT_FOUND_DEFAULT' });
    return address;
  }

  /** The street and zip code of the user's default address, if any: what an order without one copies. */
  async defaultAddressOf(userId: string): Promise<AddressFields | undefined> {
    const address = await this.addresses.readDefault(userId);
    return address && { streetName: address.streetName, zipCode: address.zipCode };
  }

  /** The first address becomes the default; a later one when `isDefault` is true (it moves the default). */
  create(userId: string, fields: AddressFields & { isDefault?: boolean }): Promise<DeliveryAddress> {
    return this.transactions.run(async (tx) => {
      await this.addresses.lockAddressBook(tx, userId);
      const hasAddresses = await this.addresses.hasAny(tx, userId);
      const isDefault = newAddressIsDefault(hasAddresses, fields.isDefault);
      if (isDefault && hasAddresses) await this.addresses.clearDefault(tx, userId);
      return this.addresses.insert(tx, userId, fields, isDefault);
    });
  }

  /**
   * PUT and PATCH: the given fields change, the others stay; `isDefault: true` moves the default here,
   * `isDefault: false` on the default is refused (400 on `isDefault`): making another one the default is
   * the way to move it.
   */
  change(userId: string, addressId: string, changes: AddressChanges): Promise<DeliveryAddress> {
    return this.transactions.run(async (tx) => {
      await this.addresses.lockAddressBook(tx, userId);
      const current = await this.addresses.read(userId, addressId);
      if (!current) throw notFound(addressId);
      const move = defaultMove(current.isDefault, changes.isDefault);
      if (move === 'refuse') {
        throw AppException.validation([{ field: 'isDefault', code: 'DEFAULT_ADDRESS_REQUIRED' }]);
      }
      if (move === 'take') await this.addresses.clearDefault(tx, userId);
      return this.addresses.update(tx, addressId, {
        streetName: changes.streetName ?? current.streetName,
        zipCode: changes.zipCode ?? current.zipCode,
        isDefault: current.isDefault || move === 'take',
      });
    });
  }

  /** Deleting the default makes the newest remaining address the default. */
  remove(userId: string, addressId: string): Promise<void> {
    return this.transactions.run(async (tx) => {
      await this.addresses.lockAddressBook(tx, userId);
      const deleted = await this.addresses.delete(tx, userId, addressId);
      if (!deleted) throw notFound(addressId);
      if (deleted.isDefault) await this.addresses.makeNewestDefault(tx, userId);
    });
  }
}

function notFound(addressId: string): AppException {
  return new AppException('ADDRESS_NOT_FOUND', { args: { addressId } });
}
