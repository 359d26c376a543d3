import { QueryFailedError } from 'typeorm';
import { safeError } from './app-logger';

describe('safeError (the err serializer of every log line)', () => {
  it('keeps type, message, stack and the SQLSTATE of a failed statement, never its parameters or detail', () => {
    const driverError = Object.assign(
      new Error('duplicate key value violates unique constraint "users_email"'),
      {
        code: '23505',
        detail: 'Key (email)=(alice@example.com) already exists.',
      },
    );
    const error = new QueryFailedError(
      'INSERT INTO users (email) VALUES ($1)',
      ['alice@example.com'],
      driverError,
    );
    const logged = safeError(error);
    expect(logged).toEqual({
      type: 'QueryFailedError',
      message: 'duplicate key value violates unique constraint "users_email"',
      stack: expect.any(String),
      code: '23505',
    });
    expect(JSON.stringify(logged)).not.toContain('alice@example.com');
  });

  it('describes what is not an Error', () => {
    expect(safeError(undefined)).toEqual({ type: 'undefined', message: 'undefined' });
  });
});
