import { Injectable, Optional } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Authenticator } from '../../platform/auth/authenticator';
import { isApiRoute } from '../../platform/http/api-route';
import type { Language } from '../../platform/problem/language';
import { LanguagePreference } from '../../platform/problem/language-preference';
import { UserSettingsService } from './user-settings.service';

/**
 * The users module's side of the `LanguagePreference` port: the `language` of the caller's settings. The
 * caller is the authenticated one, or, for answers given before the bearer guard ran (429, 410), the user
 * of a valid bearer token (the Authenticator memoizes per request, so nothing is verified twice). No cache:
 * one primary-key read per localized answer without Accept-Language, always what the last PUT stored, on
 * whichever replica it ran.
 */
@Injectable()
export class StoredLanguagePreference extends LanguagePreference {
  constructor(
    private readonly settings: UserSettingsService,
    // Absent in the worker, which answers no requests.
    @Optional() private readonly authenticator?: Authenticator,
  ) {
    super();
  }

  async of(request: FastifyRequest): Promise<Language | undefined> {
    const userId = request.caller?.userId ?? (await this.tokenUser(request));
    return userId === undefined ? undefined : this.settings.languageOf(userId);
  }

  private async tokenUser(request: FastifyRequest): Promise<string | undefined> {
    if (!this.authenticator || !isApiRoute(request)) return undefined;
    const outcome = await this.authenticator.authenticate(request);
    return 'caller' in outcome ? outcome.caller.userId : undefined;
  }
}
