import { dayPartitionName, dayStart, defaultPartitionName } from './time-partitions';

describe('day partitions: names and days', () => {
  it('takes the UTC day, whatever offset the instant was written with', () => {
    expect(dayStart(new Date('2031-03-10T22:30:00-03:30'))).toEqual(new Date('2031-03-11T00:00:00Z'));
    expect(dayStart(new Date('2031-03-11T23:59:59.999Z'))).toEqual(new Date('2031-03-11T00:00:00Z'));
  });

  it('names a day’s partition and the default one after the table, and refuses a name needing quotes', () => {
    expect(dayPartitionName('events', new Date('2031-03-11T00:00:00Z'))).toBe('events_p20310311');
    expect(defaultPartitionName('events')).toBe('events_default');
    expect(() => defaultPartitionName('events; DROP TABLE orders')).toThrow('not a plain table name');
  });
});
