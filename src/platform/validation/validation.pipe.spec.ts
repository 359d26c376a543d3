import 'reflect-metadata';
import { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotEmpty,
  IsArray,
  IsDateString,
  IsDefined,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import { AppException, ViolationInput } from '../problem/app-exception';
import { ToArray } from './to-array.decorator';
import { ParseUuidPipe } from './uuid-param.decorator';
import { ValidationPipe } from './validation.pipe';

/** A custom constraint named `name` that rejects every value but `ok`. */
function Custom(name: string, context?: Record<string, unknown>): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options: context ? { context } : undefined,
      validator: { validate: (value: unknown) => value === 'ok' },
    });
}

class Line {
  @IsDefined()
  @IsUUID()
  productId: string;

  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(1000)
  quantity: number;
}

class Address {
  @IsDefined()
  @IsString()
  @Length(2, 20)
  streetName: string;

  @IsOptional()
  @Matches(/^\d{6}$/, { context: { format: 'NNNNNN' } })
  zipCode?: string;

  @IsOptional()
  @Matches(/^[A-Z]{2}$/)
  countryCode?: string;
}

class OrderBody {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @ValidateNested({ each: true })
  @Type(() => Line)
  items?: Line[];

  @IsOptional()
  @ValidateNested()
  @Type(() => Address)
  deliveryAddress?: Address;

  @IsOptional()
  @IsString()
  @MaxLength(5)
  note?: string;
}

enum Status {
  CREATED = 'CREATED',
  SHIPPED = 'SHIPPED',
}

class Formats {
  @IsOptional() @IsEmail() email?: string;
  @IsOptional() @IsISO8601({ strict: true }) at?: string;
  @IsOptional() @IsDateString() day?: string;
  @IsOptional() @IsIn(['CSV', 'JSON']) format?: string;
  @IsOptional() @IsEnum(Status) status?: Status;
  @IsOptional() @MinLength(3) code?: string;
  @IsOptional() @IsNotEmpty() name?: string;
  @IsOptional() @IsArray() @ArrayMinSize(2) pair?: string[];
  @IsOptional() @ArrayNotEmpty() tags?: string[];
  @IsOptional() @Custom('readOnly') createdAt?: unknown;
  @IsOptional() @Custom('invalidRange') range?: string;
  @IsOptional() @Custom('looksOdd') odd?: string;
  @IsOptional() @Custom('looksOdd', { format: 'YYYY-MM' }) month?: string;
}

class ListQuery {
  @IsOptional()
  @ToArray()
  @IsEnum(Status, { each: true })
  status?: Status[];

  @IsOptional()
  @ToArray()
  @Type(() => Number)
  @IsInt({ each: true })
  regionIds?: number[];

  @Type(() => Number)
  @IsInt()
  @Min(1)
  page: number = 1;
}

class Empty {}

const pipe = new ValidationPipe();
const body = (metatype: ArgumentMetadata['metatype'], data?: string): ArgumentMetadata => ({
  type: 'body',
  metatype,
  data,
});
const query = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'query', metatype });

/** The violations the pipe rejects `value` with (fails the test when it accepts it). */
async function violationsOf(value: unknown, metadata: ArgumentMetadata): Promise<ViolationInput[]> {
  const error: unknown = await pipe.transform(value, metadata).then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof AppException)) throw new Error(`expected a validation error, got ${String(error)}`);
  expect(error.code).toBe('VALIDATION_ERROR');
  return error.options.violations ?? [];
}

describe('ValidationPipe', () => {
  it('reports every invalid field at once, with dotted paths and list indexes', async () => {
    const violations = await violationsOf(
      {
        items: [{ productId: 'nope', quantity: 0 }, { quantity: 'two', extra: true }, 7],
        deliveryAddress: { zipCode: '12AB', floor: 3 },
        note: 'far too long',
        surprise: 1,
      },
      body(OrderBody),
    );
    expect(violations).toEqual(
      expect.arrayContaining([
        { field: 'surprise', code: 'UNKNOWN_FIELD' },
        { field: 'items', code: 'MAX_ITEMS', args: { max: 2 } },
        { field: 'items[0].productId', code: 'INVALID_FORMAT', args: { format: 'uuid' } },
        { field: 'items[0].quantity', code: 'MIN', args: { min: 1 } },
        { field: 'items[1].productId', code: 'REQUIRED' },
        { field: 'items[1].quantity', code: 'INVALID_TYPE', args: { type: 'integer' } },
        { field: 'items[1].extra', code: 'UNKNOWN_FIELD' },
        { field: 'items[2]', code: 'INVALID_TYPE', args: { type: 'object' } },
        { field: 'deliveryAddress.streetName', code: 'REQUIRED' },
        { field: 'deliveryAddress.zipCode', code: 'INVALID_FORMAT', args: { format: 'NNNNNN' } },
        { field: 'deliveryAddress.floor', code: 'UNKNOWN_FIELD' },
        { field: 'note', code: 'MAX_LENGTH', args: { max: 5 } },
      ]),
    );
    expect(violations).toHaveLength(12);
  });

  it('names every string holding U+0000 (PostgreSQL cannot store it), beside the other violations', async () => {
    const violations = await violationsOf(
      {
        items: [{ productId: 'nope', quantity: 0 }],
        deliveryAddress: { streetName: 'Main\u0000', zipCode: '123456' },
        note: 'a\u0000',
      },
      body(OrderBody),
    );
    expect(violations).toEqual(
      expect.arrayContaining([
        { field: 'items[0].productId', code: 'INVALID_FORMAT', args: { format: 'uuid' } },
        { field: 'items[0].quantity', code: 'MIN', args: { min: 1 } },
        {
          field: 'deliveryAddress.streetName',
          code: 'INVALID_FORMAT',
          args: { format: 'text without U+0000' },
        },
        { field: 'note', code: 'INVALID_FORMAT', args: { format: 'text without U+0000' } },
      ]),
    );
    expect(violations).toHaveLength(4);
  });

  it('reports one violation per field, the most fundamental one', async () => {
    // Missing: REQUIRED although isUuid also failed. `null` fails @IsDefined: REQUIRED too.
    expect(
      await violationsOf({ items: [{ quantity: 1 }, { productId: null, quantity: 1 }] }, body(OrderBody)),
    ).toEqual([
      { field: 'items[0].productId', code: 'REQUIRED' },
      { field: 'items[1].productId', code: 'REQUIRED' },
    ]);
    // A string fails @IsInt and @Min: the explicit type constraint speaks, not the bound.
    expect(
      await violationsOf(
        { items: [{ productId: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', quantity: 'x' }] },
        body(OrderBody),
      ),
    ).toEqual([{ field: 'items[0].quantity', code: 'INVALID_TYPE', args: { type: 'integer' } }]);
  });

  it('maps constraints to violation codes with arguments from the decorators', async () => {
    const violations = await violationsOf(
      {
        email: 'nope',
        at: '2024-02-30T10:00:00Z',
        day: 'Monday',
        format: 'XML',
        status: 'LOST',
        code: 'ab',
        name: '',
        pair: ['a'],
        tags: [],
        createdAt: 'x',
        range: 'x',
        odd: 'x',
        month: 'x',
      },
      body(Formats),
    );
    expect(violations).toEqual([
      { field: 'email', code: 'INVALID_FORMAT', args: { format: 'email' } },
      { field: 'at', code: 'INVALID_FORMAT', args: { format: 'ISO 8601' } },
      { field: 'day', code: 'INVALID_FORMAT', args: { format: 'ISO 8601' } },
      { field: 'format', code: 'INVALID_VALUE' },
      { field: 'status', code: 'INVALID_VALUE' },
      { field: 'code', code: 'MIN_LENGTH', args: { min: 3 } },
      { field: 'name', code: 'REQUIRED' },
      { field: 'pair', code: 'MIN_ITEMS', args: { min: 2 } },
      { field: 'tags', code: 'MIN_ITEMS', args: { min: 1 } },
      // Custom constraints: their upper-snake name when it is a registered violation code.
      { field: 'createdAt', code: 'READ_ONLY' },
      { field: 'range', code: 'INVALID_RANGE' },
      { field: 'odd', code: 'INVALID_VALUE' },
      // A decorator's `context` supplies message arguments.
      { field: 'month', code: 'INVALID_VALUE', args: { format: 'YYYY-MM' } },
    ]);
  });

  it('tells a too short string from a too long one, and a non-string from both', async () => {
    const address = (streetName: unknown) => ({ deliveryAddress: { streetName } });
    expect(await violationsOf(address('x'), body(OrderBody))).toEqual([
      { field: 'deliveryAddress.streetName', code: 'MIN_LENGTH', args: { min: 2 } },
    ]);
    expect(await violationsOf(address('x'.repeat(21)), body(OrderBody))).toEqual([
      { field: 'deliveryAddress.streetName', code: 'MAX_LENGTH', args: { max: 20 } },
    ]);
    expect(await violationsOf(address(42), body(OrderBody))).toEqual([
      { field: 'deliveryAddress.streetName', code: 'INVALID_TYPE', args: { type: 'string' } },
    ]);
  });

  it('names the pattern when a @Matches() gives no format name', async () => {
    expect(
      await violationsOf({ deliveryAddress: { streetName: 'Main', countryCode: 'rus' } }, body(OrderBody)),
    ).toEqual([
      { field: 'deliveryAddress.countryCode', code: 'INVALID_FORMAT', args: { format: '^[A-Z]{2}$' } },
    ]);
  });

  it('reports a nested DTO or list of the wrong shape as INVALID_TYPE', async () => {
    expect(await violationsOf({ items: 'x', deliveryAddress: 'y' }, body(OrderBody))).toEqual([
      { field: 'items', code: 'INVALID_TYPE', args: { type: 'array' } },
      { field: 'deliveryAddress', code: 'INVALID_TYPE', args: { type: 'object' } },
    ]);
  });

  it.each([[[]], ['x'], [null], [42], [true]])(
    'rejects the body %p where an object is expected',
    async (value) => {
      expect(await violationsOf(value, body(OrderBody))).toEqual([
        { field: '', code: 'INVALID_TYPE', args: { type: 'object' } },
      ]);
    },
  );

  it('prefixes paths with the property of a partial body', async () => {
    expect(await violationsOf({ zipCode: '1' }, body(Address, 'deliveryAddress'))).toEqual([
      { field: 'deliveryAddress.streetName', code: 'REQUIRED' },
      { field: 'deliveryAddress.zipCode', code: 'INVALID_FORMAT', args: { format: 'NNNNNN' } },
    ]);
    expect(await violationsOf('x', body(Address, 'deliveryAddress'))).toEqual([
      { field: 'deliveryAddress', code: 'INVALID_TYPE', args: { type: 'object' } },
    ]);
  });

  it('treats an absent body as an empty object', async () => {
    expect(await violationsOf(undefined, body(Address))).toEqual([{ field: 'streetName', code: 'REQUIRED' }]);
    await expect(pipe.transform(undefined, body(OrderBody))).resolves.toBeInstanceOf(OrderBody);
  });

  it('accepts an empty body on a DTO without fields and rejects any field on it', async () => {
    await expect(pipe.transform({}, body(Empty))).resolves.toBeInstanceOf(Empty);
    expect(await violationsOf({ any: 1 }, body(Empty))).toEqual([{ field: 'any', code: 'UNKNOWN_FIELD' }]);
  });

  it('returns the DTO instance with nested DTOs', async () => {
    const dto = await pipe.transform(
      { items: [{ productId: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', quantity: 2 }] },
      body(OrderBody),
    );
    expect(dto).toBeInstanceOf(OrderBody);
    expect((dto as OrderBody).items?.[0]).toBeInstanceOf(Line);
  });

  it('leaves plain values and custom parameter decorators alone', async () => {
    await expect(pipe.transform('42', { type: 'param', metatype: String, data: 'id' })).resolves.toBe('42');
    await expect(pipe.transform({ a: 1 }, { type: 'body', metatype: Object })).resolves.toEqual({ a: 1 });
    await expect(pipe.transform({ sub: 'x' }, { type: 'custom', metatype: OrderBody })).resolves.toEqual({
      sub: 'x',
    });
  });

  describe('query parameters', () => {
    it('makes a single and a repeated list parameter both a list, and converts numbers', async () => {
      await expect(
        pipe.transform({ status: 'CREATED', regionIds: '7', page: '2' }, query(ListQuery)),
      ).resolves.toEqual({ status: ['CREATED'], regionIds: [7], page: 2 });
      await expect(
        pipe.transform({ status: ['CREATED', 'SHIPPED'], regionIds: ['7', '8'] }, query(ListQuery)),
      ).resolves.toEqual({ status: ['CREATED', 'SHIPPED'], regionIds: [7, 8], page: 1 });
    });

    it('rejects unknown parameters, comma-separated lists and bad numbers', async () => {
      expect(
        await violationsOf(
          { status: 'CREATED,SHIPPED', regionIds: ['7', 'x'], page: '0', sort: 'x' },
          query(ListQuery),
        ),
      ).toEqual(
        expect.arrayContaining([
          { field: 'sort', code: 'UNKNOWN_FIELD' },
          { field: 'status', code: 'INVALID_VALUE' },
          { field: 'regionIds', code: 'INVALID_TYPE', args: { type: 'integer' } },
          { field: 'page', code: 'MIN', args: { min: 1 } },
        ]),
      );
      // A repeated single-valued parameter is a list, not an integer.
      expect(await violationsOf({ page: ['1', '2'] }, query(ListQuery))).toEqual([
        { field: 'page', code: 'INVALID_TYPE', args: { type: 'integer' } },
      ]);
    });
  });
});

describe('ParseUuidPipe', () => {
  const uuidPipe = new ParseUuidPipe();
  const param: ArgumentMetadata = { type: 'param', metatype: String, data: 'orderId' };

  it('passes a uuid on in lower case', () => {
    expect(uuidPipe.transform('3F1C2D4E-5A6B-4C7D-8E9F-0A1B2C3D4E5F', param)).toBe(
      '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    );
  });

  it.each(['nope', '3f1c2d4e5a6b4c7d8e9f0a1b2c3d4e5f', '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f0'])(
    'rejects %p naming the path variable',
    (value) => {
      expect(() => uuidPipe.transform(value, param)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_ERROR',
          options: { violations: [{ field: 'orderId', code: 'INVALID_FORMAT', args: { format: 'uuid' } }] },
        }),
      );
    },
  );
});
