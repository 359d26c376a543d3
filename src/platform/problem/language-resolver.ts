import { Injectable, Logger, Optional } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DEFAULT_LANGUAGE, Language, resolveLanguage } from './language';
import { LanguagePreference } from './language-preference';

/**
 * How long an answer waits for a stored preference: a problem caused by a database outage must not wait
 * for the pool's connection timeout as well; past this it is sent in the default language.
 */
export const PREFERENCE_WAIT_MS = 250;

/**
 * The language of the localized text of a response: the first tag of `Accept-Language` when the request has
 * one (unknown tags give `ru`), else the caller's stored preference, else `ru`
 * (docs/decisions/0048-stored-language-read-only-when-needed.md). Every mechanism that writes text asks here
 * and sends the result as `Content-Language`: the problem filter, `@ResponseLanguage()` (batch item details,
 * task errors).
 */
@Injectable()
export class LanguageResolver {
  private readonly logger = new Logger('Language');

  constructor(@Optional() private readonly preference?: LanguagePreference) {}

  async resolve(request: FastifyRequest): Promise<Language> {
    const header = request.headers['accept-language'];
    if (header !== undefined && String(header).trim() !== '') return resolveLanguage(header);
    if (!this.preference) return DEFAULT_LANGUAGE;
    return (await this.storedPreference(this.preference, request)) ?? DEFAULT_LANGUAGE;
  }

  /** The stored preference, or undefined when it cannot be read in time (the answer goes out anyway). */
  private storedPreference(
    preference: LanguagePreference,
    request: FastifyRequest,
  ): Promise<Language | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), PREFERENCE_WAIT_MS);
      timer.unref();
      preference.of(request).then(
        (language) => {
          clearTimeout(timer);
          resolve(language);
        },
        (error: unknown) => {
          clearTimeout(timer);
          this.logger.warn({ msg: 'stored language preference unavailable', err: error });
          resolve(undefined);
        },
      );
    });
  }
}
