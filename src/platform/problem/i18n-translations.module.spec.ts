import { APP_INTERCEPTOR } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { I18nService } from 'nestjs-i18n';
import { i18nTranslationsModule } from './i18n-translations.module';

describe('i18nTranslationsModule', () => {
  it('keeps nestjs-i18n translating in both languages', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [i18nTranslationsModule()] }).compile();
    const i18n = moduleRef.get<I18nService<Record<string, unknown>>>(I18nService);
    const key: string = 'errors.INTERNAL_ERROR';
    expect(i18n.translate(key, { lang: 'en' })).toMatch(/^[^а-яё]*[a-z]/i);
    expect(i18n.translate(key, { lang: 'ru' })).toMatch(/[а-яё]/i);
    await moduleRef.close();
  });

  it('leaves out nestjs-i18n’s global interceptor (nothing reads its request context)', () => {
    const provided = (i18nTranslationsModule().providers ?? []).map((p) =>
      typeof p === 'object' && 'provide' in p ? p.provide : p,
    );
    expect(provided).toContain(I18nService);
    expect(provided).not.toContain(APP_INTERCEPTOR);
  });
});
