import type { FastifyRequest } from 'fastify';
import { AppException } from '../problem/app-exception';
import { entityTag, ifMatchVersions, ifNoneMatchHits, parseEntityTags } from './conditional-requests';

const ID = '3f1c2a4e-8d7b-4c1a-9e2f-0a1b2c3d4e5f';
const CURRENT = entityTag(ID, 3);

function request(headers: Record<string, string>): FastifyRequest {
  return { headers } as unknown as FastifyRequest;
}

/** What a write of version 3 of the resource makes of `If-Match: <header>`, as the services check it. */
function ifMatchError(header: string): AppException | undefined {
  try {
    const versions = ifMatchVersions(request({ 'if-match': header }), ID);
    return versions === undefined || versions.includes(3)
      ? undefined
      : new AppException('CONCURRENT_MODIFICATION');
  } catch (error: unknown) {
    if (error instanceof AppException) return error;
    throw error;
  }
}

describe('entityTag', () => {
  it('is a quoted strong tag of the id and the version', () => {
    expect(CURRENT).toBe(`"${ID}.v3"`);
    expect(entityTag(ID, 4)).not.toBe(CURRENT);
    expect(entityTag('4d8f9a10-0000-4000-8000-000000000000', 3)).not.toBe(CURRENT);
  });

  it.each([
    ['an id with a quote', 'a"b', 1],
    ['an empty id', '', 1],
    ['a fractional version', ID, 1.5],
    ['a negative version', ID, -1],
  ])('refuses %s', (_case, id, version) => {
    expect(() => entityTag(id, version)).toThrow();
  });
});

describe('parseEntityTags', () => {
  it.each([
    ['"a"', [{ weak: false, opaque: '"a"' }]],
    [
      'W/"a", "b"',
      [
        { weak: true, opaque: '"a"' },
        { weak: false, opaque: '"b"' },
      ],
    ],
    [
      '"a,b" ,"c"',
      [
        { weak: false, opaque: '"a,b"' },
        { weak: false, opaque: '"c"' },
      ],
    ],
    [
      '"a", , "b"',
      [
        { weak: false, opaque: '"a"' },
        { weak: false, opaque: '"b"' },
      ],
    ],
    ['""', [{ weak: false, opaque: '""' }]],
    ['', []],
  ])('%s', (header, tags) => {
    expect(parseEntityTags(header)).toEqual(tags);
  });

  it.each(['a', '"a" "b"', 'W/a', 'w/"a"', '"a', '"a"x'])('rejects %s', (header) => {
    expect(parseEntityTags(header)).toBeUndefined();
  });
});

describe('ifNoneMatchHits', () => {
  it.each([
    [CURRENT, true],
    [`W/${CURRENT}`, true],
    [`"x", ${CURRENT}`, true],
    ['*', true],
    [' * ', true],
    [entityTag(ID, 2), false],
    ['"x"', false],
    ['garbage', false],
  ])('If-None-Match: %s → %s', (header, hit) => {
    expect(ifNoneMatchHits(request({ 'if-none-match': header }), CURRENT)).toBe(hit);
  });

  it('no header never hits', () => {
    expect(ifNoneMatchHits(request({}), CURRENT)).toBe(false);
  });
});

describe('ifMatchVersions', () => {
  it.each([CURRENT, `"x", ${CURRENT}`, '*'])('passes for If-Match: %s', (header) => {
    expect(ifMatchError(header)).toBeUndefined();
  });

  it('passes without the header (the write is unconditional)', () => {
    expect(ifMatchVersions(request({}), ID)).toBeUndefined();
  });

  it.each([entityTag(ID, 2), `W/${CURRENT}`, '"x"', ''])(
    '409 CONCURRENT_MODIFICATION for If-Match: %s',
    (header) => {
      expect(ifMatchError(header)?.code).toBe('CONCURRENT_MODIFICATION');
    },
  );

  it('names the versions of this resource only, as entityTag() prints them', () => {
    const other = '4d8f9a10-0000-4000-8000-000000000000';
    expect(
      ifMatchVersions(request({ 'if-match': `${entityTag(other, 3)}, ${entityTag(ID, 7)}` }), ID),
    ).toEqual([7]);
    expect(ifMatchVersions(request({ 'if-match': `"${ID}.v03", "${ID}.v-1", "${ID}.v"` }), ID)).toEqual([]);
  });

  it('400 VALIDATION_ERROR on If-Match for a header that is no entity-tag list', () => {
    const error = ifMatchError(`${ID}.v3`);
    expect(error?.code).toBe('VALIDATION_ERROR');
    expect(error?.options.violations).toEqual([
      { field: 'If-Match', code: 'INVALID_FORMAT', args: { format: '"<entity-tag>"' } },
    ]);
  });
});
