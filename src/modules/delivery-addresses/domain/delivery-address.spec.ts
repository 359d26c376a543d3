import { defaultMove, newAddressIsDefault } from './delivery-address';

describe('the default delivery address', () => {
  it('is the first address whatever the client asks, and a later one only when asked', () => {
    expect(newAddressIsDefault(false, undefined)).toBe(true);
    expect(newAddressIsDefault(false, false)).toBe(true);
    expect(newAddressIsDefault(true, undefined)).toBe(false);
    expect(newAddressIsDefault(true, false)).toBe(false);
    expect(newAddressIsDefault(true, true)).toBe(true);
  });

  it('moves to an address set isDefault: true, and cannot be unset on the default itself', () => {
    expect(defaultMove(false, true)).toBe('take');
    expect(defaultMove(true, false)).toBe('refuse');
    expect(defaultMove(true, true)).toBe('keep');
    expect(defaultMove(false, false)).toBe('keep');
    expect(defaultMove(true, undefined)).toBe('keep');
    expect(defaultMove(false, undefined)).toBe('keep');
  });
});
