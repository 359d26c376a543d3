import { Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { i18nTranslationsModule } from './i18n-translations.module';
import { LanguageResolver } from './language-resolver';
import { ProblemDetailsFilter } from './problem-details.filter';
import { ProblemRenderer } from './problem-renderer';
import { Translator } from './translator';

@Global()
@Module({
  imports: [i18nTranslationsModule()],
  providers: [
    Translator,
    ProblemRenderer,
    LanguageResolver,
    ProblemDetailsFilter,
    { provide: APP_FILTER, useExisting: ProblemDetailsFilter },
  ],
  exports: [Translator, ProblemRenderer, LanguageResolver, ProblemDetailsFilter],
})
export class ProblemModule {}
