import type { LightMyRequestResponse } from 'fastify';
import { isObject } from './schema';

/** Who sends a request: the fuzz plays an admin, a customer and, now and then, nobody. */
export type CallerName = 'admin' | 'customer' | 'anonymous';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Names under which one id is known: a customer is a user, a user id names a customer. */
const SAME_IDS: Record<string, string[]> = { customerId: ['userId'], userId: ['customerId'] };

/** A parent and child id that belong together (`orderId` / `itemId`). */
export interface IdPair {
  parent: string;
  child: string;
}

/**
 * What the service has issued so far, by id name (`orderId`, `itemId`, ...) and by caller: the fuzz
 * addresses real resources (their own and others'), besides unknown and malformed ids. Ids are harvested
 * from every answer, so resources the fuzz creates are used, changed and deleted by later requests.
 */
export class World {
  private readonly ids = new Map<string, string[]>();
  private readonly pairs = new Map<string, IdPair[]>();
  private readonly etags: string[] = [];
  /** Prices of products and totals of orders, as last seen: what a new line would add up to. */
  private readonly prices = new Map<string, number>();
  private readonly totals = new Map<string, number>();

  priceOf(productId: string): number | undefined {
    return this.prices.get(productId.toLowerCase());
  }

  totalOf(orderId: string): number | undefined {
    return this.totals.get(orderId.toLowerCase());
  }

  /**
   * Ids named `name` that `caller` has seen (theirs, mostly), or that anyone has; the newest first, as
   * generators favour the first values and the newest resources are the likeliest to still be usable.
   */
  known(name: string, caller?: CallerName): string[] {
    const own = caller ? (this.ids.get(`${caller}:${name}`) ?? []) : [];
    return [...(own.length > 0 ? own : (this.ids.get(name) ?? []))].reverse();
  }

  /** Ids of any caller named `name`, the newest first. */
  anyones(name: string): string[] {
    return [...(this.ids.get(name) ?? [])].reverse();
  }

  /** Pairs `parent`/`child` seen by `caller`, or by anyone, the newest first. */
  knownPairs(parent: string, child: string, caller?: CallerName): IdPair[] {
    const own = caller ? (this.pairs.get(`${caller}:${parent}/${child}`) ?? []) : [];
    return [...(own.length > 0 ? own : (this.pairs.get(`${parent}/${child}`) ?? []))].reverse();
  }

  knownEtags(): string[] {
    return this.etags;
  }

  add(name: string, id: string, caller?: CallerName): void {
    for (const key of [name, ...(SAME_IDS[name] ?? [])]) {
      for (const scoped of caller ? [key, `${caller}:${key}`] : [key]) push(this.ids, scoped, id);
    }
  }

  addPair(parent: string, child: string, pair: IdPair, caller?: CallerName): void {
    push(this.pairs, `${parent}/${child}`, pair);
    if (caller) push(this.pairs, `${caller}:${parent}/${child}`, pair);
  }

  /**
   * Everything an answer tells about ids: `<name>Id` members anywhere in its JSON, the result of a task
   * (`resultUrl`), the items of an order and the children created under a path (`pathIds`).
   */
  harvest(res: LightMyRequestResponse, caller: CallerName, pathIds: Record<string, string>): void {
    const etag = res.headers.etag;
    if (typeof etag === 'string') remember(this.etags, etag);
    if (res.statusCode >= 300 || !/json/.test(String(res.headers['content-type']))) return;
    let body: unknown;
    try {
      body = res.json();
    } catch {
      return;
    }
    this.visit(body, caller, pathIds);
  }

  private visit(value: unknown, caller: CallerName, pathIds: Record<string, string>): void {
    if (Array.isArray(value)) {
      for (const item of value) this.visit(item, caller, pathIds);
      return;
    }
    if (!isObject(value)) return;
    for (const [key, member] of Object.entries(value)) {
      if (/Id$/.test(key) && typeof member === 'string' && UUID.test(member)) {
        this.add(key, member, caller);
        for (const [parent, parentId] of Object.entries(pathIds)) {
          if (parent !== key && (key === 'itemId' || key === 'attachmentId')) {
            this.addPair(parent, key, { parent: parentId, child: member }, caller);
          }
        }
      } else if ((key === 'nextCursor' || key === 'prevCursor') && typeof member === 'string') {
        push(this.ids, 'cursor', member);
      } else if (key === 'resultUrl' && typeof member === 'string') {
        const [, kind, id] = /\/(reports|exports)\/([0-9a-f-]{36})$/.exec(member) ?? [];
        if (kind && id) this.add(kind === 'reports' ? 'reportId' : 'exportId', id, caller);
      }
    }
    if (typeof value.productId === 'string' && typeof value.price === 'number') {
      this.prices.set(value.productId, value.price);
    }
    if (typeof value.orderId === 'string' && typeof value.totalAmount === 'number') {
      this.totals.set(value.orderId, value.totalAmount);
    }
    // The lines of an order belong to it.
    const orderId = value.orderId;
    if (typeof orderId === 'string' && Array.isArray(value.items)) {
      for (const item of value.items) {
        if (isObject(item) && typeof item.itemId === 'string') {
          this.addPair('orderId', 'itemId', { parent: orderId, child: item.itemId }, caller);
        }
      }
    }
    for (const member of Object.values(value)) {
      if (isObject(member) || Array.isArray(member)) this.visit(member, caller, pathIds);
    }
  }
}

/** Most values kept per name: the newest, as the older ones are more often gone. */
const MAX_KEPT = 200;

function remember<T>(list: T[], value: T): void {
  if (list.includes(value)) return;
  list.push(value);
  if (list.length > MAX_KEPT) list.shift();
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key) ?? [];
  remember(list, value);
  map.set(key, list);
}
