import { Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AcceptLanguageResolver, I18nModule } from 'nestjs-i18n';
import * as path from 'node:path';
import { DEFAULT_LANGUAGE } from './language';
import { ProblemDetailsFilter } from './problem-details.filter';
import { Translator } from './translator';

/** i18n/ sits beside src/ in the repository and beside dist/src/ after the build (scripts/copy-assets.js). */
export const I18N_PATH = path.resolve(__dirname, '..', '..', 'i18n');

@Global()
@Module({
  imports: [
    I18nModule.forRoot({
      fallbackLanguage: DEFAULT_LANGUAGE,
      loaderOptions: { path: I18N_PATH, watch: false },
      // Mechanisms pass the language explicitly (PITFALLS 5); the resolver serves I18nContext in handlers.
      resolvers: [AcceptLanguageResolver],
    }),
  ],
  providers: [Translator, ProblemDetailsFilter, { provide: APP_FILTER, useExisting: ProblemDetailsFilter }],
  exports: [Translator, ProblemDetailsFilter],
})
export class ProblemModule {}
