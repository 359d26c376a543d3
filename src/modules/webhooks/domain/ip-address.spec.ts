import { ipFamily, ipv4InIpv6, parseIpNetwork } from './ip-address';

describe('ipFamily', () => {
  it.each([
    ['127.0.0.1', 4],
    ['::1', 6],
    ['::ffff:127.0.0.1', 6],
    ['fe80::1%eth0', 6],
    // Numeric IPv4 forms other than dotted decimal: the URL parser has normalised them before this point,
    // and a resolver never answers with them.
    ['2130706433', undefined],
    ['0177.0.0.1', undefined],
    ['127.1', undefined],
    ['fe80::1%', undefined],
    ['[::1]', undefined],
    ['example.com', undefined],
  ])('%j: %s', (text, family) => {
    expect(ipFamily(text)).toBe(family);
  });
});

describe('networks', () => {
  it.each([
    ['10.0.0.0/8', '10.255.1.2', true],
    ['10.0.0.0/8', '11.0.0.0', false],
    ['100.64.0.0/10', '100.127.255.255', true],
    ['100.64.0.0/10', '100.128.0.0', false],
    ['100.64.0.0/10', '100.63.255.255', false],
    ['10.1.2.3/8', '10.9.9.9', true], // bits past the prefix are ignored
    ['0.0.0.0/0', '203.0.113.1', true],
    ['0.0.0.0/0', '::1', false], // families never mix
    ['0.0.0.0/0', '::ffff:1.2.3.4', false], // an embedded IPv4 is judged by its form, not here
    ['::/0', '1.2.3.4', false],
    ['127.0.0.1', '127.0.0.1', true],
    ['127.0.0.1', '127.0.0.2', false],
    ['fc00::/7', 'fdff::1', true],
    ['fc00::/7', 'fe00::1', false],
    ['fe80::/10', 'febf::1%eth0', true],
    ['fe80::/10', 'fec0::1', false],
  ])('%s holds %s: %s', (cidr, address, holds) => {
    expect(parseIpNetwork(cidr)?.contains(address)).toBe(holds);
  });

  it.each([
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    'fe80::%eth0/64',
    'x/8',
    '10.0.0.0/08x',
  ])('refuses %j', (text) => {
    expect(parseIpNetwork(text)).toBeUndefined();
  });
});

describe('ipv4InIpv6', () => {
  it.each([
    ['::ffff:127.0.0.1', 6, '127.0.0.1'],
    ['::ffff:7f00:1', 6, '127.0.0.1'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 6, '169.254.169.254'],
    ['64:ff9b::', 6, '0.0.0.0'],
    ['64:FF9B::C0A8:101', 6, '192.168.1.1'],
    ['2002:a00:1::', 1, '10.0.0.1'],
    ['2002:7f00:1::1%eth0', 1, '127.0.0.1'],
  ])('%s from group %d: %s', (address, group, ipv4) => {
    expect(ipv4InIpv6(address, group)).toBe(ipv4);
  });
});
