/**
 * A delivery address of a user's address book: plain data and the rules of
 * the default, no framework. Exactly one address of a user with any address is the default.
 */
export interface DeliveryAddress {
  addressId: string;
  userId: string;
  streetName: string;
  zipCode: string;
  isDefault: boolean;
  createdAt: Date;
}

/** What a client sets on an address. */
export interface AddressFields {
  streetName: string;
  zipCode: string;
}

/** A change of an address: fields left undefined stay as they are. */
export interface AddressChanges {
  streetName?: string;
  zipCode?: string;
  isDefault?: boolean;
}

/** A new address is the default when it is the user's first, or when the client asks for it. */
export function newAddressIsDefault(userHasAddresses: boolean, requested: boolean | undefined): boolean {
  return !userHasAddresses || requested === true;
}

/**
 * What a change does to the default: `take` it from the current default, `keep` things as they are, or
 * `refuse` (the default cannot be unset: only making another address the default moves it).
 */
export function defaultMove(isDefault: boolean, requested: boolean | undefined): 'take' | 'keep' | 'refuse' {
  if (requested === true && !isDefault) return 'take';
  if (requested === false && isDefault) return 'refuse';
  return 'keep';
}
