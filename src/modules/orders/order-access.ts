import { type Caller, isAdmin } from '../../platform/auth/caller';
import { AppException } from '../../platform/problem/app-exception';

/** A customer sees and changes only their own orders; an admin all. */
export function assertOrderVisible(caller: Caller, order: { customerId: string }): void {
  if (order.customerId !== caller.userId && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
}
