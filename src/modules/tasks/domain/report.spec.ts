import { ReportAccumulator, toCents } from './report';
import { daysInRange, progressOf } from './task';

describe('report accumulation', () => {
  it('parses decimal text to exact cents', () => {
    expect(toCents('0')).toBe(0n);
    expect(toCents('1.1')).toBe(110n);
    expect(toCents('1.10')).toBe(110n);
    expect(toCents('9999999999.99')).toBe(999999999999n);
    expect(toCents('-0.05')).toBe(-5n);
    expect(() => toCents('1.234')).toThrow();
  });

  it('merges chunks exactly, ranks products with ties broken by id, and fills every day', () => {
    const report = new ReportAccumulator({ dateFrom: '2024-02-28', dateTo: '2024-03-01' });
    report.add({
      orders: 3,
      days: [
        { day: '2024-02-28', status: 'CREATED', orders: 2, amount: '0.10' },
        { day: '2024-03-01', status: 'CANCELLED', orders: 1, amount: '0.20' },
      ],
      products: [
        { productId: 'b', productName: 'B', quantity: 2, amount: '0.20' },
        { productId: 'a', productName: 'A', quantity: 2, amount: '0.10' },
      ],
    });
    report.add({
      orders: 1,
      days: [{ day: '2024-02-28', status: 'CREATED', orders: 1, amount: '0.20' }],
      products: [{ productId: 'a', productName: 'A', quantity: 1, amount: '0.20' }],
    });
    expect(report.report('RUB')).toEqual({
      dateFrom: '2024-02-28',
      dateTo: '2024-03-01',
      currency: 'RUB',
      orderCount: 4,
      totalAmount: 0.5, // 0.1 + 0.2 + 0.2 in cents: no floating-point drift
      byStatus: [
        { status: 'CANCELLED', orderCount: 1, totalAmount: 0.2 },
        { status: 'CREATED', orderCount: 3, totalAmount: 0.3 },
      ],
      topProductsByQuantity: [
        { productId: 'a', productName: 'A', quantity: 3, amount: 0.3 },
        { productId: 'b', productName: 'B', quantity: 2, amount: 0.2 },
      ],
      topProductsByAmount: [
        { productId: 'a', productName: 'A', quantity: 3, amount: 0.3 },
        { productId: 'b', productName: 'B', quantity: 2, amount: 0.2 },
      ],
      daily: [
        { date: '2024-02-28', orderCount: 3, totalAmount: 0.3 },
        { date: '2024-02-29', orderCount: 0, totalAmount: 0 },
        { date: '2024-03-01', orderCount: 1, totalAmount: 0.2 },
      ],
    });
  });

  it('keeps at most 10 products per ranking', () => {
    const report = new ReportAccumulator({ dateFrom: '2024-01-01', dateTo: '2024-01-01' });
    report.add({
      orders: 0,
      days: [],
      products: Array.from({ length: 12 }, (_, i) => ({
        productId: `p${String(i).padStart(2, '0')}`,
        productName: `P${i}`,
        quantity: i + 1,
        amount: `${12 - i}.00`,
      })),
    });
    const { topProductsByQuantity, topProductsByAmount } = report.report('RUB');
    expect(topProductsByQuantity.map((p) => p.productId)).toEqual([
      'p11',
      'p10',
      'p09',
      'p08',
      'p07',
      'p06',
      'p05',
      'p04',
      'p03',
      'p02',
    ]);
    expect(topProductsByAmount.map((p) => p.productId)).toEqual([
      'p00',
      'p01',
      'p02',
      'p03',
      'p04',
      'p05',
      'p06',
      'p07',
      'p08',
      'p09',
    ]);
  });

  it('counts days both ends included, and holds progress below 100 until completion', () => {
    expect(daysInRange('2024-01-01', '2024-01-01')).toBe(1);
    expect(daysInRange('2024-01-01', '2024-12-31')).toBe(366);
    expect(daysInRange('2023-03-25', '2023-03-27')).toBe(3);
    expect(progressOf(0, 10)).toBe(0);
    expect(progressOf(5, 10)).toBe(50);
    expect(progressOf(10, 10)).toBe(99);
    expect(progressOf(0, 0)).toBe(99);
  });
});
