import type { PooledStatements, PreparedStatement } from '../../database/pooled-statements';
import { DEFAULT_SORT } from '../domain/order-list-criteria';
import { OrdersRepository } from './orders.repository';

function repositoryRecordingStatements() {
  const statements: Array<PreparedStatement | string> = [];
  const pooled = {
    rows: jest.fn((statement: PreparedStatement | string) => {
      statements.push(statement);
      return Promise.resolve([{ total: '0', orders: [] }]);
    }),
  } as unknown as PooledStatements;
  return { repository: new OrdersRepository(pooled), statements };
}

describe('OrdersRepository.page', () => {
  it("runs a customer's pages as named statements, one name per variant of the text", async () => {
    const { repository, statements } = repositoryRecordingStatements();
    const window = { limit: 20, offset: 0 };
    await repository.page({}, { customerId: 'c1' }, DEFAULT_SORT, window, { total: true });
    await repository.page({}, { customerId: 'c2' }, DEFAULT_SORT, { limit: 20, offset: 40 }, { total: true });
    await repository.page({ statuses: ['CREATED'] }, { customerId: 'c1' }, DEFAULT_SORT, window, {
      total: true,
    });
    const [first, second, filtered] = statements as PreparedStatement[];
    expect(first.name).toMatch(/^orders\.customer-page\.\d+$/);
    expect(second).toBe(first);
    expect(filtered.name).toMatch(/^orders\.customer-page\.\d+$/);
    expect(filtered.name).not.toBe(first.name);
  });

  it('runs lists across customers unnamed: their best plan depends on the values', async () => {
    const { repository, statements } = repositoryRecordingStatements();
    await repository.page(
      { statuses: ['CREATED'] },
      {},
      DEFAULT_SORT,
      { limit: 20, offset: 0 },
      { total: true },
    );
    expect(typeof statements[0]).toBe('string');
  });
});
