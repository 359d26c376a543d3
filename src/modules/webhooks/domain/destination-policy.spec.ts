import { DestinationPolicy, MAX_WEBHOOK_URL_LENGTH } from './destination-policy';

const strict = new DestinationPolicy({ allowPrivateUrls: false, allowedNetworks: [] });

/** The refusal's detail for `address` (e.g. "a loopback address (127.0.0.0/8)"), or 'allowed'. */
const judge = (policy: DestinationPolicy, address: string): string => {
  const verdict = policy.checkAddress(address);
  return verdict.allowed ? 'allowed' : verdict.refusal.detail;
};

describe('DestinationPolicy: addresses (every class of the IANA special-purpose registries)', () => {
  it.each([
    // IPv4
    ['0.0.0.0', '"this network"', '0.0.0.0/8'],
    ['0.1.2.3', '"this network"', '0.0.0.0/8'],
    ['10.0.0.1', 'private-use', '10.0.0.0/8'],
    ['10.255.255.255', 'private-use', '10.0.0.0/8'],
    ['100.64.0.1', 'shared address space (carrier-grade NAT)', '100.64.0.0/10'],
    ['100.127.255.254', 'shared address space (carrier-grade NAT)', '100.64.0.0/10'],
    ['127.0.0.1', 'loopback', '127.0.0.0/8'],
    ['127.255.255.254', 'loopback', '127.0.0.0/8'],
    ['169.254.169.254', 'link-local (cloud metadata services)', '169.254.0.0/16'],
    ['169.254.0.1', 'link-local (cloud metadata services)', '169.254.0.0/16'],
    ['172.16.0.1', 'private-use', '172.16.0.0/12'],
    ['172.31.255.255', 'private-use', '172.16.0.0/12'],
    ['192.0.0.1', 'IETF protocol assignments', '192.0.0.0/24'],
    ['192.0.0.9', 'IETF protocol assignments', '192.0.0.0/24'], // PCP anycast: refused with its block
    ['192.0.0.170', 'IETF protocol assignments', '192.0.0.0/24'], // NAT64 discovery
    ['192.0.2.1', 'documentation (TEST-NET-1)', '192.0.2.0/24'],
    ['192.88.99.1', 'deprecated 6to4 relay anycast', '192.88.99.0/24'],
    ['192.168.1.1', 'private-use', '192.168.0.0/16'],
    ['198.18.0.1', 'benchmarking', '198.18.0.0/15'],
    ['198.19.255.255', 'benchmarking', '198.18.0.0/15'],
    ['198.51.100.7', 'documentation (TEST-NET-2)', '198.51.100.0/24'],
    ['203.0.113.9', 'documentation (TEST-NET-3)', '203.0.113.0/24'],
    ['224.0.0.1', 'multicast', '224.0.0.0/4'],
    ['239.255.255.250', 'multicast', '224.0.0.0/4'],
    ['240.0.0.1', 'reserved', '240.0.0.0/4'],
    ['255.255.255.254', 'reserved', '240.0.0.0/4'],
    ['255.255.255.255', 'limited broadcast', '255.255.255.255/32'],
    // IPv6
    ['::', 'unspecified', '::/128'],
    ['::1', 'loopback', '::1/128'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated)', '::/96'],
    ['64:ff9b:1::a00:1', 'local-use IPv4/IPv6 translation', '64:ff9b:1::/48'],
    ['100::1', 'discard-only', '100::/64'],
    ['100:0:0:1::1', 'dummy prefix', '100:0:0:1::/64'],
    ['2001::1', 'IETF protocol assignments (Teredo, benchmarking, ORCHID, …)', '2001::/23'], // Teredo
    [
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'IETF protocol assignments (Teredo, benchmarking, ORCHID, …)',
      '2001::/23',
    ],
    ['2001:2::1', 'IETF protocol assignments (Teredo, benchmarking, ORCHID, …)', '2001::/23'], // benchmarking
    ['2001:10::1', 'IETF protocol assignments (Teredo, benchmarking, ORCHID, …)', '2001::/23'], // ORCHID
    ['2001:db8::1', 'documentation', '2001:db8::/32'],
    ['3fff::1', 'documentation', '3fff::/20'],
    ['5f00::1', 'segment routing SIDs', '5f00::/16'],
    ['fc00::1', 'unique-local', 'fc00::/7'],
    ['fd12:3456:789a::1', 'unique-local', 'fc00::/7'],
    ['fe80::1', 'link-local', 'fe80::/10'],
    ['febf::1', 'link-local', 'fe80::/10'],
    ['fe80::1%eth0', 'link-local', 'fe80::/10'], // a zone id picks an interface, the address stays link-local
    ['fec0::1', 'site-local (deprecated)', 'fec0::/10'],
    ['ff02::1', 'multicast', 'ff00::/8'],
    ['ff05::1:3', 'multicast', 'ff00::/8'],
    ['4000::1', 'reserved (outside the global unicast block 2000::/3)', '::/0'],
    ['::2', 'IPv4-compatible (deprecated)', '::/96'],
  ])('refuses %s: %s (%s)', (address, name, cidr) => {
    expect(judge(strict, address)).toBe(`${address} is a ${name} address (${cidr})`);
  });

  it.each([
    // An IPv4 address inside IPv6 is judged as that IPv4 address: mapped (dotted and hex), NAT64, 6to4.
    ['::ffff:127.0.0.1', '127.0.0.1 (IPv4-mapped), a loopback address (127.0.0.0/8)'],
    ['::ffff:7f00:1', '127.0.0.1 (IPv4-mapped), a loopback address (127.0.0.0/8)'],
    [
      '0:0:0:0:0:ffff:a9fe:a9fe',
      '169.254.169.254 (IPv4-mapped), a link-local (cloud metadata services) address (169.254.0.0/16)',
    ],
    ['::ffff:10.0.0.1', '10.0.0.1 (IPv4-mapped), a private-use address (10.0.0.0/8)'],
    ['::ffff:0.0.0.0', '0.0.0.0 (IPv4-mapped), a "this network" address (0.0.0.0/8)'],
    ['64:ff9b::127.0.0.1', '127.0.0.1 (NAT64), a loopback address (127.0.0.0/8)'],
    [
      '64:ff9b::a9fe:a9fe',
      '169.254.169.254 (NAT64), a link-local (cloud metadata services) address (169.254.0.0/16)',
    ],
    ['64:ff9b::c0a8:101', '192.168.1.1 (NAT64), a private-use address (192.168.0.0/16)'],
    ['2002:7f00:1::1', '127.0.0.1 (6to4), a loopback address (127.0.0.0/8)'],
    ['2002:a00:1::', '10.0.0.1 (6to4), a private-use address (10.0.0.0/8)'],
    [
      '2002:6440:1::1',
      '100.64.0.1 (6to4), a shared address space (carrier-grade NAT) address (100.64.0.0/10)',
    ],
    ['2002:e000:1::', '224.0.0.1 (6to4), a multicast address (224.0.0.0/4)'],
  ])('refuses %s as %s', (address, judged) => {
    expect(judge(strict, address)).toBe(`${address} is ${judged}`);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255', // just below 100.64.0.0/10
    '100.128.0.0', // just above it
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1', // beside 192.0.0.0/24
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001::1',
    '2620:4f:8000::1', // AS112 direct delegation: globally reachable in the registry
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ])('allows %s', (address) => {
    expect(judge(strict, address)).toBe('allowed');
  });

  it('refuses what is not an address', () => {
    expect(judge(strict, 'example.com')).toBe('example.com is not an IP address');
    expect(judge(strict, '0177.0.0.1')).toBe('0177.0.0.1 is not an IP address');
  });
});

describe('DestinationPolicy: URLs', () => {
  const url = (text: string, policy = strict): string => {
    const verdict = policy.checkUrl(text);
    return verdict.allowed
      ? `allowed ${verdict.host}${verdict.literal ? ' (literal)' : ''}`
      : verdict.refusal.rule;
  };

  it.each([
    // Every numeric spelling of 127.0.0.1 the URL parser understands (WHATWG): it hands over the dotted form.
    ['https://2130706433/', 'ADDRESS'],
    ['https://0177.0.0.1/', 'ADDRESS'],
    ['https://0x7f.1/', 'ADDRESS'],
    ['https://127.1/', 'ADDRESS'],
    ['https://0x7f000001/', 'ADDRESS'],
    ['https://017700000001/', 'ADDRESS'],
    ['https://0x7f.0.0.1/', 'ADDRESS'],
    ['https://%31%32%37.0.0.1/', 'ADDRESS'],
    ['https://127.0.0.1./', 'ADDRESS'],
    ['https://127.0.0.1:8443/hook', 'ADDRESS'],
    ['https://169.254.169.254/latest/meta-data/', 'ADDRESS'],
    ['https://0.0.0.0/', 'ADDRESS'],
    ['https://0/', 'ADDRESS'],
    ['https://10.0.0.1/', 'ADDRESS'],
    ['https://[::1]/', 'ADDRESS'],
    ['https://[0:0:0:0:0:0:0:1]/', 'ADDRESS'],
    ['https://[::ffff:127.0.0.1]/', 'ADDRESS'],
    ['https://[::ffff:7f00:1]/', 'ADDRESS'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'ADDRESS'],
    ['https://[2002:a9fe:a9fe::]/', 'ADDRESS'],
    ['https://[fe80::1]/', 'ADDRESS'],
    ['https://[fd00::1]:8443/', 'ADDRESS'],
    // Names of the loopback host, in any case, with or without the root label's dot.
    ['https://localhost/', 'LOCAL_NAME'],
    ['https://LOCALHOST:8443/', 'LOCAL_NAME'],
    ['https://localhost./', 'LOCAL_NAME'],
    ['https://api.localhost/', 'LOCAL_NAME'],
    ['https://api.localhost./', 'LOCAL_NAME'],
    // The form of the URL.
    ['http://example.com/hook', 'SCHEME'],
    ['ftp://example.com/', 'SCHEME'],
    ['javascript:alert(1)', 'SCHEME'],
    ['file:///etc/passwd', 'SCHEME'],
    ['https://user:pass@example.com/', 'USER_INFO'],
    ['https://user@example.com/', 'USER_INFO'],
    ['https://:pass@example.com/', 'USER_INFO'],
    ['example.com/hook', 'NOT_A_URL'],
    ['/hook', 'NOT_A_URL'],
    ['https://', 'NOT_A_URL'],
    ['https://[fe80::1%25eth0]/', 'NOT_A_URL'], // the URL standard has no zone ids
    ['https://1.2.3.4.5/', 'NOT_A_URL'],
    ['https://256.0.0.1/', 'NOT_A_URL'],
  ])('refuses %s (%s)', (text, rule) => {
    expect(url(text)).toBe(rule);
  });

  it.each([
    ['https://example.com/hooks/orders?v=1', 'allowed example.com'],
    ['https://EXAMPLE.com:8443/', 'allowed example.com'],
    ['https://example.com./', 'allowed example.com.'],
    ['https://localhost.example.com/', 'allowed localhost.example.com'],
    ['https://8.8.8.8/', 'allowed 8.8.8.8 (literal)'],
    ['https://134744072/', 'allowed 8.8.8.8 (literal)'],
    ['https://[2606:4700:4700::1111]/', 'allowed 2606:4700:4700::1111 (literal)'],
    ['https://[::ffff:8.8.8.8]/', 'allowed ::ffff:808:808 (literal)'],
    ['https://bücher.example/', 'allowed xn--bcher-kva.example'],
  ])('allows %s', (text, verdict) => {
    expect(url(text)).toBe(verdict);
  });

  it(`takes URLs of at most ${MAX_WEBHOOK_URL_LENGTH} characters`, () => {
    const base = 'https://example.com/';
    expect(url(base + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - base.length))).toBe('allowed example.com');
    expect(url(base + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - base.length + 1))).toBe('TOO_LONG');
  });

  it('says why, naming the address and its range', () => {
    expect(strict.checkUrl('https://0x7f.1/')).toEqual({
      allowed: false,
      refusal: { rule: 'ADDRESS', detail: '127.0.0.1 is a loopback address (127.0.0.0/8)' },
    });
    expect(strict.checkUrl('http://example.com/')).toEqual({
      allowed: false,
      refusal: { rule: 'SCHEME', detail: 'the scheme must be https' },
    });
  });
});

describe('DestinationPolicy: allowed networks', () => {
  const policy = new DestinationPolicy({
    allowPrivateUrls: false,
    allowedNetworks: ['10.0.0.0/8', 'fd00::/8', '127.0.0.1', '169.254.169.254/32'],
  });

  it.each([
    '10.1.2.3',
    '::ffff:10.1.2.3', // mapped: judged as 10.1.2.3
    '64:ff9b::a01:203', // NAT64: the translator forwards to 10.1.2.3
    '2002:a01:203::1', // 6to4: the relay forwards to 10.1.2.3
    'fd12::1',
    '127.0.0.1',
    '169.254.169.254',
  ])('allows %s', (address) => {
    expect(judge(policy, address)).toBe('allowed');
  });

  it.each(['172.16.0.1', '127.0.0.2', 'fc00::1', '::1', '169.254.169.253', '::ffff:192.168.0.1'])(
    'still refuses %s',
    (address) => {
      expect(judge(policy, address)).not.toBe('allowed');
    },
  );

  it('allows URLs to them, still only https', () => {
    expect(policy.checkUrl('https://[fd00::5]:8443/hook').allowed).toBe(true);
    expect(policy.checkUrl('https://10.0.0.7/hook').allowed).toBe(true);
    expect(policy.checkUrl('http://10.0.0.7/hook').allowed).toBe(false);
  });

  it('refuses a network it cannot read', () => {
    expect(
      () => new DestinationPolicy({ allowPrivateUrls: false, allowedNetworks: ['10.0.0.0/33'] }),
    ).toThrow('not a CIDR: 10.0.0.0/33');
  });
});

describe('DestinationPolicy: private URLs allowed (development, tests)', () => {
  const open = new DestinationPolicy({ allowPrivateUrls: true, allowedNetworks: [] });

  it.each([
    'http://localhost:3000/hook',
    'http://127.0.0.1:3000/',
    'https://[::1]/',
    'http://10.0.0.1/',
    'http://0x7f.1/',
  ])('allows %s', (text) => {
    expect(open.checkUrl(text).allowed).toBe(true);
  });

  it('allows every address', () => {
    expect(open.allowsEveryAddress).toBe(true);
    expect(judge(open, '169.254.169.254')).toBe('allowed');
    expect(judge(open, 'fe80::1')).toBe('allowed');
  });

  it('still refuses user info and other schemes', () => {
    expect(open.checkUrl('http://user:pass@localhost/').allowed).toBe(false);
    expect(open.checkUrl('ftp://localhost/').allowed).toBe(false);
  });
});
