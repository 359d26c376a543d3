import { Logger } from '@nestjs/common';
import { TypeOrmLogger } from './typeorm-logger';

describe('TypeOrmLogger', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('logs a failed statement as one object with its SQLSTATE and one-line text, without parameter values', () => {
    const error = Object.assign(new Error('numeric field overflow'), { code: '22003' });
    new TypeOrmLogger().logQueryError(error, 'INSERT INTO orders\n  (total_amount)\n  VALUES ($1)', [
      '99999999999.99',
      'secret',
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
    const [logged] = warn.mock.calls[0] as [Record<string, unknown>];
    expect(logged).toEqual({
      msg: 'statement failed',
      code: '22003',
      error: 'numeric field overflow',
      statement: 'INSERT INTO orders (total_amount) VALUES ($1)',
    });
    expect(JSON.stringify(logged)).not.toMatch(/99999999999|secret/);
  });
});
