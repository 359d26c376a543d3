import type { FastifyRequest } from 'fastify';
import type { Language } from './language';
import { LanguagePreference } from './language-preference';
import { LanguageResolver, PREFERENCE_WAIT_MS } from './language-resolver';

class FakePreference extends LanguagePreference {
  readonly of = jest.fn<Promise<Language | undefined>, [FastifyRequest]>();
}

const request = (acceptLanguage?: string): FastifyRequest =>
  ({ headers: acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage } }) as FastifyRequest;

describe('LanguageResolver', () => {
  let preference: FakePreference;
  let resolver: LanguageResolver;
  beforeEach(() => {
    preference = new FakePreference();
    resolver = new LanguageResolver(preference);
  });
  afterEach(() => jest.useRealTimers());

  it('takes Accept-Language without asking for the stored preference', async () => {
    await expect(resolver.resolve(request('en-US,ru;q=0.5'))).resolves.toBe('en');
    await expect(resolver.resolve(request('de'))).resolves.toBe('ru');
    expect(preference.of).not.toHaveBeenCalled();
  });

  it('asks for the stored preference when the header is absent or blank', async () => {
    preference.of.mockResolvedValue('en');
    await expect(resolver.resolve(request())).resolves.toBe('en');
    await expect(resolver.resolve(request('  '))).resolves.toBe('en');
    expect(preference.of).toHaveBeenCalledTimes(2);
  });

  it('falls back to ru without a preference, when it fails, and when it is slower than the wait', async () => {
    await expect(new LanguageResolver().resolve(request())).resolves.toBe('ru');
    preference.of.mockResolvedValueOnce(undefined);
    await expect(resolver.resolve(request())).resolves.toBe('ru');
    preference.of.mockRejectedValueOnce(new Error('database down'));
    await expect(resolver.resolve(request())).resolves.toBe('ru');

    jest.useFakeTimers();
    preference.of.mockReturnValueOnce(new Promise(() => undefined));
    const pending = resolver.resolve(request());
    jest.advanceTimersByTime(PREFERENCE_WAIT_MS);
    await expect(pending).resolves.toBe('ru');
  });
});
