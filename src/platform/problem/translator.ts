import { Injectable } from '@nestjs/common';
import { I18nService } from 'nestjs-i18n';
import { TranslationArgs } from './app-exception';
import { Language } from './language';

/** Thin, typed front of nestjs-i18n: the language is always passed explicitly (its request context is missing in filters on Fastify). */
@Injectable()
export class Translator {
  constructor(private readonly i18n: I18nService) {}

  translate(key: string, lang: Language, args?: TranslationArgs): string {
    return this.i18n.translate(key, { lang, args }) as string;
  }

  has(key: string, lang: Language): boolean {
    const text = this.i18n.translate(key, { lang });
    return typeof text === 'string' && text !== key;
  }
}
