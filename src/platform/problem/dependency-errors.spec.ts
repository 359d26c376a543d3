import { isDependencyUnavailable } from './dependency-errors';

describe('isDependencyUnavailable', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    [
      'a cancelled statement (statement timeout)',
      { message: 'canceling statement', driverError: { code: '57014' } },
    ],
    ['a server shutting down', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    ['a connection exception', { code: '08006' }],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
    [
      'Redis without its connection',
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    ],
  ])('%s', (_name, error) => {
    expect(isDependencyUnavailable(error)).toBe(true);
  });

  it.each([
    ['a bug', new TypeError('x is not a function')],
    ['a constraint violation', { code: '23505', message: 'duplicate key' }],
    ['nothing', undefined],
  ])('not %s', (_name, error) => {
    expect(isDependencyUnavailable(error)).toBe(false);
  });
});
