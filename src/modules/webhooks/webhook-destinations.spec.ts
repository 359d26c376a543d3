import { loadConfig } from '../../platform/config/app-config';
import { DestinationPolicy } from './domain/destination-policy';
import {
  checkWebhookDestination,
  HostResolver,
  ResolvedAddress,
  systemHostResolver,
} from './webhook-destinations';

const strict = new DestinationPolicy({ allowPrivateUrls: false, allowedNetworks: [] });
const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

/** A resolver answering from a table, recording what it was asked. */
function resolverOf(table: Record<string, readonly ResolvedAddress[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve: HostResolver = async (hostname) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses;
  };
  return Object.assign(resolve, { asked });
}

describe('checkWebhookDestination (endpoint create and patch)', () => {
  const resolver = resolverOf({
    'hooks.example.com': [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')],
    'internal.example.com': [v4('10.1.2.3')],
    'metadata.example.com': [v4('169.254.169.254')],
    'half.example.com': [v4('93.184.216.34'), v6('fd00::1')],
    'mapped.example.com': [v6('::ffff:127.0.0.1')],
    'empty.example.com': [],
  });

  it('accepts a name whose every address is public', async () => {
    expect(await checkWebhookDestination('https://hooks.example.com/orders', strict, resolver)).toEqual({
      allowed: true,
      resolved: true,
    });
  });

  it.each([
    ['internal.example.com', 'internal.example.com: 10.1.2.3 is a private-use address (10.0.0.0/8)'],
    [
      'metadata.example.com',
      'metadata.example.com: 169.254.169.254 is a link-local (cloud metadata services) address (169.254.0.0/16)',
    ],
    ['half.example.com', 'half.example.com: fd00::1 is a unique-local address (fc00::/7)'],
    [
      'mapped.example.com',
      'mapped.example.com: ::ffff:127.0.0.1 is 127.0.0.1 (IPv4-mapped), a loopback address (127.0.0.0/8)',
    ],
  ])('refuses %s, naming the address', async (host, detail) => {
    expect(await checkWebhookDestination(`https://${host}/hook`, strict, resolver)).toEqual({
      allowed: false,
      refusal: { rule: 'ADDRESS', detail },
    });
  });

  it('accepts a name that does not resolve, or has no address: each attempt judges its addresses', async () => {
    expect(await checkWebhookDestination('https://not-yet.example.com/', strict, resolver)).toEqual({
      allowed: true,
      resolved: false,
    });
    expect(await checkWebhookDestination('https://empty.example.com/', strict, resolver)).toEqual({
      allowed: true,
      resolved: false,
    });
  });

  it('accepts a name that does not resolve in time, without waiting longer', async () => {
    let release: (() => void) | undefined;
    const hanging: HostResolver = () =>
      new Promise((resolve) => {
        release = () => resolve([v4('10.0.0.1')]);
      });
    const checked = checkWebhookDestination('https://slow.example.com/', strict, hanging, 50);
    expect(await checked).toEqual({ allowed: true, resolved: false });
    release?.();
  });

  it('judges a literal address or the form of the URL without resolving', async () => {
    const asked = resolverOf({});
    expect(await checkWebhookDestination('https://8.8.8.8/hook', strict, asked)).toEqual({
      allowed: true,
      resolved: true,
    });
    expect(await checkWebhookDestination('https://2130706433/hook', strict, asked)).toMatchObject({
      allowed: false,
      refusal: { rule: 'ADDRESS' },
    });
    expect(await checkWebhookDestination('http://hooks.example.com/', strict, asked)).toMatchObject({
      allowed: false,
      refusal: { rule: 'SCHEME' },
    });
    expect(await checkWebhookDestination('https://localhost/', strict, asked)).toMatchObject({
      allowed: false,
      refusal: { rule: 'LOCAL_NAME' },
    });
    expect(asked.asked).toEqual([]);
  });

  it('resolves nothing when every address is allowed', async () => {
    const asked = resolverOf({});
    const open = new DestinationPolicy({ allowPrivateUrls: true, allowedNetworks: [] });
    expect(await checkWebhookDestination('http://receiver.internal:8080/', open, asked)).toEqual({
      allowed: true,
      resolved: true,
    });
    expect(asked.asked).toEqual([]);
  });

  it("resolves every address of a name with the system's resolver", async () => {
    const addresses = await systemHostResolver('localhost');
    expect(addresses.length).toBeGreaterThan(0);
    for (const { address } of addresses) expect(['127.0.0.1', '::1']).toContain(address);
  });
});

describe('WEBHOOK_ALLOWED_NETWORKS', () => {
  it('takes only networks the destination policy reads', () => {
    const { webhooks } = loadConfig(
      {
        WEBHOOK_ALLOWED_NETWORKS:
          '10.0.0.0/8,172.16.5.0/24,192.168.1.10,fd00::/8,::ffff:10.0.0.0/104,2001:db8::/32',
      },
      { name: 'order-service', version: '0' },
    );
    const policy = new DestinationPolicy(webhooks);
    for (const address of ['10.9.9.9', '172.16.5.200', '192.168.1.10', 'fd00::9', '2001:db8::1']) {
      expect(policy.checkAddress(address)).toEqual({ allowed: true });
    }
    expect(policy.checkAddress('192.168.1.11').allowed).toBe(false);
  });
});
