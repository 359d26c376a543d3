export const SUPPORTED_LANGUAGES = ['ru', 'en'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'ru';

/**
 * The first tag of Accept-Language decides (quality weights ignored, case-insensitive, `en-US` → `en`);
 * anything else falls back to `ru`.
 */
export function resolveLanguage(acceptLanguage: string | string[] | undefined): Language {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage;
  if (!header) return DEFAULT_LANGUAGE;
  const first = header.split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? '';
  const primary = first.split('-')[0] ?? '';
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(primary)
    ? (primary as Language)
    : DEFAULT_LANGUAGE;
}
