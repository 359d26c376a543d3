import 'reflect-metadata';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import * as fc from 'fast-check';
import { AppException, ViolationInput } from '../problem/app-exception';
import {
  boolean,
  date,
  decimal,
  email,
  type FieldKind,
  integer,
  listOf,
  type PlainFieldKind,
  type Presence,
  RequestField,
  schemaOf,
  text,
  uuid,
} from './fields';
import { ValidationPipe } from './validation.pipe';

const pipe = new ValidationPipe();

/** A DTO class with one field `v` of `kind`. */
function dtoOf(kind: FieldKind, presence: Presence = 'required'): new () => object {
  class Dto {
    v?: unknown;
  }
  RequestField(kind, { presence })(Dto.prototype, 'v');
  return Dto;
}

/** The violations the validation pipe reports for `body` (none when it passes). */
async function violationsOf(dto: new () => object, body: unknown): Promise<ViolationInput[]> {
  try {
    await pipe.transform(body, { type: 'body', metatype: dto, data: undefined });
    return [];
  } catch (error: unknown) {
    if (error instanceof AppException) return error.options.violations ?? [];
    throw error;
  }
}

describe('field kinds: the document and the validation say the same', () => {
  // multipleOf 0.01 on binary floats needs a tolerance, as any validator of decimals does.
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false, multipleOfPrecision: 9 }));

  /** Kinds with edges worth probing, and values near them. */
  const cases: Array<{ name: string; kind: PlainFieldKind; values: fc.Arbitrary<unknown> }> = [
    {
      name: 'single-line text 1..5',
      kind: text({ min: 1, max: 5 }),
      values: fc.oneof(
        fc.string({ maxLength: 7, unit: 'grapheme' }),
        fc.string({ maxLength: 7, unit: 'binary' }),
        fc.constantFrom(
          '\u2764\uFE0F\u2764\uFE0F\u2764',
          'ab\ncd',
          'a\u0085b',
          '😀😀😀😀😀',
          '😀😀😀😀😀😀',
          '',
        ),
      ),
    },
    {
      name: 'multi-line text 0..4',
      kind: text({ min: 0, max: 4, multiline: true }),
      values: fc.oneof(
        fc.string({ maxLength: 6, unit: 'binary' }),
        fc.constantFrom('a\r\nb', 'a\tb', '\u0000', '\u007F', ''),
      ),
    },
    {
      name: 'integer 1..100',
      kind: integer({ min: 1, max: 100 }),
      values: fc.oneof(
        fc.integer({ min: -5, max: 105 }),
        fc.double(),
        fc.constantFrom(1.5, '7', 1e21, -0, 100.0000001),
      ),
    },
    {
      name: 'money',
      kind: decimal({ min: 0, max: 9_999_999_999.99, decimals: 2 }),
      values: fc.oneof(
        fc.integer({ min: -1, max: 1000 }).map((cents) => cents / 100),
        fc.constantFrom(0.07, 1.005, 9_999_999_999.99, 10_000_000_000, '1.00', 19.9),
      ),
    },
    {
      name: 'uuid',
      kind: uuid(),
      values: fc.oneof(
        fc.uuid(),
        fc.string({ maxLength: 40 }),
        fc.constantFrom(
          '7F1C0E7E-1F2A-4C53-9D0E-2B6F1B9F4A10',
          'urn:uuid:7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10',
          '00000000-0000-0000-0000-000000000001',
          '00000000-0000-0000-0000-000000000000',
          '7f1c0e7e-1f2a-9c53-9d0e-2b6f1b9f4a10',
        ),
      ),
    },
    {
      name: 'date',
      kind: date(),
      values: fc.oneof(
        fc
          .date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10)),
        fc.constantFrom('2024-02-30', '2023-02-29', '2024-13-01', '2024-1-01', '20240101', '2024-02-29'),
      ),
    },
    {
      name: 'boolean',
      kind: boolean(),
      values: fc.oneof(fc.boolean(), fc.constantFrom('true', 0, 1)),
    },
    {
      name: 'email ≤ 20',
      kind: email(20),
      values: fc.oneof(
        fc.constantFrom('a@example.com', 'x'.repeat(10) + '@example.com', 'no-at-sign', 'a@b'),
      ),
    },
  ];

  it.each(cases)(
    '$name: a value the schema takes is valid, and only such a value',
    async ({ kind, values }) => {
      const dto = dtoOf(kind);
      const schema = { type: 'object', required: ['v'], properties: { v: schemaOf(kind) } };
      const validate = ajv.compile(schema);
      await fc.assert(
        fc.asyncProperty(values, async (value) => {
          const documented = validate({ v: value });
          const violations = await violationsOf(dto, { v: value });
          expect({ value, accepted: violations.length === 0 }).toEqual({ value, accepted: documented });
        }),
        { numRuns: 300, seed: 14 },
      );
    },
  );

  it('reports the bound a text breaks, counting code points as the schema does', async () => {
    const dto = dtoOf(text({ min: 2, max: 3 }));
    expect(await violationsOf(dto, { v: '😀' })).toEqual([
      { field: 'v', code: 'MIN_LENGTH', args: { min: 2 } },
    ]);
    expect(await violationsOf(dto, { v: '😀😀😀' })).toEqual([]);
    expect(await violationsOf(dto, { v: '\u2764\uFE0F\u2764\uFE0F' })).toEqual([
      { field: 'v', code: 'MAX_LENGTH', args: { max: 3 } },
    ]);
    expect(await violationsOf(dto, { v: 'a\nb' })).toEqual([
      { field: 'v', code: 'INVALID_FORMAT', args: { format: 'one line of text' } },
    ]);
  });

  it('declares integers int32 or int64 by their range', () => {
    expect(integer({ min: 0, max: 2_147_483_647 }).schema).toMatchObject({ format: 'int32' });
    expect(integer({ min: 0, max: 2_147_483_648 }).schema).toMatchObject({ format: 'int64' });
  });

  it('bounds a list: MAX_ITEMS beyond it, each element checked', async () => {
    const dto = dtoOf(listOf(integer({ min: 0, max: 9 }), { max: 2 }));
    expect(await violationsOf(dto, { v: [1, 2, 3] })).toEqual([
      { field: 'v', code: 'MAX_ITEMS', args: { max: 2 } },
    ]);
    expect(await violationsOf(dto, { v: [1, 10] })).toEqual([{ field: 'v', code: 'MAX', args: { max: 9 } }]);
    expect(listOf(integer({ min: 0, max: 9 }), { max: 2 }).schema).toMatchObject({
      type: 'array',
      maxItems: 2,
      items: { type: 'integer', maximum: 9 },
    });
  });

  describe('presence', () => {
    const kind = text({ min: 1, max: 5 });

    it('required: absent and null are REQUIRED', async () => {
      expect(await violationsOf(dtoOf(kind), {})).toEqual([{ field: 'v', code: 'REQUIRED' }]);
      expect(await violationsOf(dtoOf(kind), { v: null })).toEqual([{ field: 'v', code: 'REQUIRED' }]);
    });

    it('optional: absent is fine, null is no string', async () => {
      expect(await violationsOf(dtoOf(kind, 'optional'), {})).toEqual([]);
      expect(await violationsOf(dtoOf(kind, 'optional'), { v: null })).toEqual([
        { field: 'v', code: 'INVALID_TYPE', args: { type: 'string' } },
      ]);
    });

    it('patch: absent is fine, null (removing a required field) is REQUIRED', async () => {
      expect(await violationsOf(dtoOf(kind, 'patch'), {})).toEqual([]);
      expect(await violationsOf(dtoOf(kind, 'patch'), { v: null })).toEqual([
        { field: 'v', code: 'REQUIRED' },
      ]);
    });

    it('nullable: absent and null are fine', async () => {
      expect(await violationsOf(dtoOf(kind, 'nullable'), { v: null })).toEqual([]);
      expect(await violationsOf(dtoOf(kind, 'nullable'), { v: '' })).toEqual([
        { field: 'v', code: 'MIN_LENGTH', args: { min: 1 } },
      ]);
    });
  });
});
