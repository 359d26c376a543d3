import type { Sql } from '../../../platform/database/sql';
import type { SqlStatement } from '../../../platform/database/sql-statement';
import { DEFAULT_SORT } from '../domain/order-list-criteria';
import { OrdersRepository } from './orders.repository';

function repositoryRecordingStatements() {
  const statements: SqlStatement[] = [];
  const sql = {
    rows: jest.fn((statement: SqlStatement) => {
      statements.push(statement);
      return Promise.resolve([{ total: '0', content: '[]' }]);
    }),
  } as unknown as Sql;
  return { repository: new OrdersRepository(sql), statements };
}

describe('OrdersRepository pages', () => {
  it("runs a customer's pages as named statements, one name per variant of the text", async () => {
    const { repository, statements } = repositoryRecordingStatements();
    const window = { limit: 20, offset: 0 };
    await repository.offsetPage({}, { customerId: 'c1' }, DEFAULT_SORT, window, 'v1');
    await repository.offsetPage({}, { customerId: 'c2' }, DEFAULT_SORT, { limit: 20, offset: 40 }, 'v1');
    await repository.offsetPage({ statuses: ['CREATED'] }, { customerId: 'c1' }, DEFAULT_SORT, window, 'v1');
    const [first, second, filtered] = statements as SqlStatement[];
    expect(first.name).toMatch(/^orders\.customer-page-v1\.\d+$/);
    expect(second).toBe(first);
    expect(filtered.name).toMatch(/^orders\.customer-page-v1\.\d+$/);
    expect(filtered.name).not.toBe(first.name);
  });

  it('names the pages of each API version apart: their texts differ', async () => {
    const { repository, statements } = repositoryRecordingStatements();
    const window = { limit: 20, offset: 0 };
    await repository.offsetPage({}, { customerId: 'c1' }, DEFAULT_SORT, window, 'v1');
    await repository.offsetPage({}, { customerId: 'c1' }, DEFAULT_SORT, window, 'v2');
    const [v1, v2] = statements as SqlStatement[];
    expect(v2.name).toMatch(/^orders\.customer-page-v2\.\d+$/);
    expect(v2.text).not.toBe(v1.text);
  });

  it('runs lists across customers unnamed: their best plan depends on the values', async () => {
    const { repository, statements } = repositoryRecordingStatements();
    await repository.offsetPage({ statuses: ['CREATED'] }, {}, DEFAULT_SORT, { limit: 20, offset: 0 }, 'v1');
    expect(statements[0].name).toBeUndefined();
  });
});
