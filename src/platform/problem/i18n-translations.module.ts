import { APP_INTERCEPTOR } from '@nestjs/core';
import type { DynamicModule, Provider } from '@nestjs/common';
import { AcceptLanguageResolver, I18nModule } from 'nestjs-i18n';
import * as path from 'node:path';
import { DEFAULT_LANGUAGE } from './language';

/** i18n/ sits beside src/ in the repository and beside dist/src/ after the build (scripts/copy-assets.js). */
export const I18N_PATH = path.resolve(__dirname, '..', '..', '..', 'i18n');

/**
 * nestjs-i18n as the store of `i18n/ru` and `i18n/en` texts behind the Translator, without its per-request
 * machinery. Every mechanism that writes text passes the language it resolved from `Accept-Language`
 * (language.ts; nestjs-i18n's context is missing in filters on Fastify anyway), so nothing reads
 * nestjs-i18n's request context. Its middleware (an async context per request) is disabled by option; its
 * global language interceptor has no option, so its provider is left out: with no global interceptor Nest
 * calls read handlers directly instead of through an rxjs chain
 * (docs/decisions/0029-i18n-is-a-text-store.md).
 */
export function i18nTranslationsModule(): DynamicModule {
  const i18n = I18nModule.forRoot({
    fallbackLanguage: DEFAULT_LANGUAGE,
    loaderOptions: { path: I18N_PATH, watch: false },
    disableMiddleware: true,
    // Inert without the interceptor and middleware; named because nestjs-i18n logs an error without one.
    resolvers: [AcceptLanguageResolver],
  });
  return { ...i18n, providers: (i18n.providers ?? []).filter((p) => !providesGlobalInterceptor(p)) };
}

function providesGlobalInterceptor(provider: Provider): boolean {
  return typeof provider === 'object' && 'provide' in provider && provider.provide === APP_INTERCEPTOR;
}
