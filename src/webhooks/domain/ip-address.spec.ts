import { isIP } from 'node:net';
import { formatIpAddress, networkContains, parseIpAddress, parseIpNetwork } from './ip-address';

const bytesOf = (text: string): number[] | undefined => {
  const address = parseIpAddress(text);
  return address && [...address.bytes];
};

describe('parseIpAddress', () => {
  it.each([
    ['0.0.0.0', [0, 0, 0, 0]],
    ['127.0.0.1', [127, 0, 0, 1]],
    ['255.255.255.255', [255, 255, 255, 255]],
    ['::', new Array(16).fill(0)],
    ['::1', [...new Array(15).fill(0), 1]],
    ['1::', [0, 1, ...new Array(14).fill(0)]],
    ['::ffff:127.0.0.1', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]],
    ['::ffff:7f00:1', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]],
    ['0:0:0:0:0:ffff:7f00:1', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]],
    ['2001:DB8:0:0:0:0:0:1', [0x20, 0x01, 0x0d, 0xb8, ...new Array(11).fill(0), 1]],
    ['1:2:3:4:5:6:7::', [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 0]],
    ['fe80::1%eth0', [0xfe, 0x80, ...new Array(13).fill(0), 1]],
  ])('%s', (text, bytes) => {
    expect(bytesOf(text)).toEqual(bytes);
  });

  it.each([
    // Numeric IPv4 forms other than dotted decimal: the URL parser has normalised them before this point,
    // and a resolver never answers with them.
    '2130706433',
    '0177.0.0.1',
    '0x7f.0.0.1',
    '127.1',
    '127.0.0.01',
    '256.0.0.1',
    '1.2.3.4.5',
    '1.2.3.',
    '',
    ':',
    ':::',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1::2::3',
    '12345::',
    'g::1',
    '::ffff:256.0.0.1',
    '::ffff:1.2.3',
    'fe80::1%',
    'example.com',
    '[::1]',
  ])('refuses %j', (text) => {
    expect(parseIpAddress(text)).toBeUndefined();
  });

  it.each([
    '127.0.0.1',
    '0.0.0.0',
    '01.2.3.4',
    '1.2.3',
    '::',
    '::1',
    '::ffff:1.2.3.4',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6::8',
    '1::8',
    'a:b:c:d:e:f:1.2.3.4',
    '::a:b:c:d:e:f:0',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    'fe80::1%eth0',
    'abcde::1',
  ])('agrees with node:net on %j', (text) => {
    expect(parseIpAddress(text)?.family ?? 0).toBe(isIP(text));
  });

  it('formats addresses for messages', () => {
    expect(formatIpAddress(parseIpAddress('10.1.2.3')!)).toBe('10.1.2.3');
    expect(formatIpAddress(parseIpAddress('2001:db8::1')!)).toBe('2001:db8:0:0:0:0:0:1');
  });
});

describe('networks', () => {
  it.each([
    ['10.0.0.0/8', '10.255.1.2', true],
    ['10.0.0.0/8', '11.0.0.0', false],
    ['100.64.0.0/10', '100.127.255.255', true],
    ['100.64.0.0/10', '100.128.0.0', false],
    ['100.64.0.0/10', '100.63.255.255', false],
    ['172.16.0.0/12', '172.31.0.1', true],
    ['172.16.0.0/12', '172.32.0.1', false],
    ['10.1.2.3/8', '10.9.9.9', true], // bits past the prefix are ignored
    ['0.0.0.0/0', '203.0.113.1', true],
    ['0.0.0.0/0', '::1', false], // families never mix
    ['127.0.0.1', '127.0.0.1', true],
    ['127.0.0.1', '127.0.0.2', false],
    ['fc00::/7', 'fdff::1', true],
    ['fc00::/7', 'fe00::1', false],
    ['fe80::/10', 'febf::1', true],
    ['fe80::/10', 'fec0::1', false],
    ['::/0', '2001:db8::1', true],
  ])('%s holds %s: %s', (cidr, address, holds) => {
    expect(networkContains(parseIpNetwork(cidr)!, parseIpAddress(address)!)).toBe(holds);
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
