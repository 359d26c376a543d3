import type { FastifyRequest } from 'fastify';
import type { Language } from './language';

/**
 * Port: the language the sender of a request chose for themselves (a request without `Accept-Language`
 * gets the caller's stored `language`). The users module, which stores
 * it, provides the implementation; this folder never imports a domain module, so it only knows the port.
 * Consulted by `LanguageResolver` only when a response localizes text and the request has no
 * `Accept-Language`: the common path pays nothing for it.
 */
export abstract class LanguagePreference {
  /**
   * The stored language of the user the request comes from, or undefined when the request names no user
   * or the user chose none. Read at the source each time (no per-process copy that another replica's
   * change would leave stale).
   */
  abstract of(request: FastifyRequest): Promise<Language | undefined>;
}
