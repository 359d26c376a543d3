import { BlockList, isIP, SocketAddress } from 'node:net';

/**
 * IP addresses and networks as Node's `net` module reads and matches them (`isIP`, `BlockList`,
 * `SocketAddress`): addresses stay the text resolvers and the WHATWG URL parser produce, dotted-decimal IPv4
 * (the URL parser has already turned every other numeric form into it) and RFC 4291 IPv6 text, with an
 * optional dotted IPv4 tail and zone id.
 */
export type IpFamily = 4 | 6;

const BLOCK_LIST_FAMILY = { 4: 'ipv4', 6: 'ipv6' } as const;

/** The family of the address `text` names, or undefined when it is not an IP address. */
export function ipFamily(text: string): IpFamily | undefined {
  const family = isIP(text);
  return family === 4 || family === 6 ? family : undefined;
}

/** An address prefix (`10.0.0.0/8`, `fc00::/7`, or one address), matched by a `BlockList` of its own. */
export interface IpNetwork {
  readonly family: IpFamily;
  readonly prefixLength: number;
  /**
   * Whether `address` (of the same family) lies in the network. Bits past the prefix of the network's
   * address are ignored; an IPv6 zone id is too (it picks an interface, not another address).
   */
  contains(address: string): boolean;
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (its full length); undefined when it is none of these. */
export function parseIpNetwork(text: string): IpNetwork | undefined {
  const [address, prefix, ...rest] = text.split('/');
  const family = ipFamily(address);
  if (family === undefined || rest.length > 0 || address.includes('%')) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return undefined;
  const prefixLength = prefix === undefined ? bits : Number(prefix);
  if (prefixLength > bits) return undefined;
  const list = new BlockList();
  list.addSubnet(address, prefixLength, BLOCK_LIST_FAMILY[family]);
  return {
    family,
    prefixLength,
    // Families never mix here: an IPv4 address inside IPv6 is found and judged by its form (embedded-ipv4).
    contains: (candidate) =>
      ipFamily(candidate) === family && list.check(candidate, BLOCK_LIST_FAMILY[family]),
  };
}

/**
 * The dotted IPv4 address held by the two 16-bit groups of the IPv6 address `address` that start at group
 * `index` (0..6). The groups are read from the canonical text Node writes of the address (zone id dropped by
 * `SocketAddress`, then hex groups with one `::` by the URL serializer).
 */
export function ipv4InIpv6(address: string, index: number): string {
  const normal = new SocketAddress({ address, family: 'ipv6' }).address;
  const canonical = new URL(`http://[${normal}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split('::').map((half) => (half === '' ? [] : half.split(':')));
  const groups =
    tail === undefined ? head : [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  return groups
    .slice(index, index + 2)
    .map((group) => parseInt(group, 16))
    .flatMap((value) => [value >> 8, value & 0xff])
    .join('.');
}
