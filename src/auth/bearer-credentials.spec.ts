import { readBearerCredentials } from './bearer-credentials';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

describe('readBearerCredentials', () => {
  it.each([
    ['Bearer', `Bearer ${JWT}`],
    ['lower-case scheme (RFC 9110: schemes are case-insensitive)', `bearer ${JWT}`],
    ['several spaces and surrounding blanks', `  BEARER   ${JWT}  `],
    ['a base64 token with padding', 'Bearer abc+/def=='],
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
  ])('has an invalid token with %s', (_case, header) => {
    expect(readBearerCredentials(header)).toEqual({ failure: 'invalid' });
  });
});
