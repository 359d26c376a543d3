import { readBearerCredentials } from './bearer-credentials';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

describe('readBearerCredentials', () => {
  it.each([
    ['Bearer', `Bearer ${JWT}`],
    ['lower-case scheme (RFC 9110: schemes are case-insensitive)', `bearer ${JWT}`],
    ['several spaces and surrounding blanks', `  BEARER   ${JWT}  `],
  ])('reads the token with %s', (_case, header) => {
    expect(readBearerCredentials(header)).toEqual({ token: header.trim().split(/ +/)[1] });
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a raw token without the Bearer word', JWT],
    ['the scheme word alone', 'Bearer'],
    ['the scheme word and blanks', 'Bearer   '],
    ['a scheme glued to the token', `Bearer:${JWT}`],
  ])('has no bearer credentials with %s', (_case, header) => {
    expect(readBearerCredentials(header)).toEqual({ failure: 'missing' });
  });

  it.each([
    ['two tokens', `Bearer ${JWT} ${JWT}`],
    ['characters outside token68', 'Bearer abc"def'],
    ['padding in the middle', 'Bearer ab=c'],
    ['a JWT with base64 padding (another spelling of a valid token)', `Bearer ${JWT}==`],
    ['a JWT in base64 instead of base64url', `Bearer ${JWT.replace('c2', 'c+/')}`],
    ['a token68 that is no JWT', 'Bearer abc+/def=='],
    ['a token longer than 4 KiB', `Bearer ${JWT}${'A'.repeat(4096)}`],
  ])('has an invalid token with %s', (_case, header) => {
    expect(readBearerCredentials(header)).toEqual({ failure: 'invalid' });
  });
});
