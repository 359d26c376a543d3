/**
 * IP addresses and networks as bytes, parsed from the text forms resolvers and the WHATWG URL parser produce:
 * dotted-decimal IPv4 (no octal, hex or short forms: those never reach here, the URL parser has already turned
 * them into dotted decimal) and RFC 4291 IPv6 text, with an optional dotted IPv4 tail and zone id.
 */
export interface IpAddress {
  readonly family: 4 | 6;
  /** 4 bytes for IPv4, 16 for IPv6, network order. */
  readonly bytes: Uint8Array;
}

/** An address prefix (`10.0.0.0/8`, `fc00::/7`). */
export interface IpNetwork {
  readonly address: IpAddress;
  readonly prefixLength: number;
}

const DECIMAL_OCTET = /^(?:0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!DECIMAL_OCTET.test(parts[i])) return undefined;
    const value = Number(parts[i]);
    if (value > 255) return undefined;
    bytes[i] = value;
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | undefined {
  let groupsText = text;
  let ipv4Tail: Uint8Array | undefined;
  const lastColon = text.lastIndexOf(':');
  if (lastColon === -1) return undefined;
  if (text.includes('.', lastColon)) {
    // `::ffff:127.0.0.1`: the tail stands for the last two groups.
    ipv4Tail = parseIpv4(text.slice(lastColon + 1));
    if (ipv4Tail === undefined) return undefined;
    groupsText = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = groupsText.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string): string[] => (half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  const elided = 8 - head.length - tail.length;
  if (halves.length === 1 ? elided !== 0 : elided < 1) return undefined;
  const groups = [...head, ...Array<string>(elided).fill('0'), ...tail];
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    if (!HEX_GROUP.test(groups[i])) return undefined;
    const value = parseInt(groups[i], 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  }
  if (ipv4Tail) bytes.set(ipv4Tail, 12);
  return bytes;
}

/**
 * The address `text` names, or undefined when it is not an IP address. An IPv6 zone id (`fe80::1%eth0`) is
 * dropped: it picks an interface, not another address, and only non-global addresses carry one.
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  if (text.includes(':')) {
    const zone = text.indexOf('%');
    const bytes = parseIpv6(zone === -1 ? text : text.slice(0, zone));
    return bytes && (zone === -1 || zone < text.length - 1) ? { family: 6, bytes } : undefined;
  }
  const bytes = parseIpv4(text);
  return bytes && { family: 4, bytes };
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (its full length); undefined when it is none of these. */
export function parseIpNetwork(text: string): IpNetwork | undefined {
  const slash = text.indexOf('/');
  const address = parseIpAddress(slash === -1 ? text : text.slice(0, slash));
  if (address === undefined || text.includes('%')) return undefined;
  const bits = address.bytes.length * 8;
  if (slash === -1) return { address, prefixLength: bits };
  const prefix = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return undefined;
  return { address, prefixLength: Number(prefix) };
}

/** Whether `address` lies in `network` (bits past the prefix of the network's address are ignored). */
export function networkContains(network: IpNetwork, address: IpAddress): boolean {
  if (network.address.family !== address.family) return false;
  const { prefixLength } = network;
  const whole = prefixLength >> 3;
  for (let i = 0; i < whole; i++) if (network.address.bytes[i] !== address.bytes[i]) return false;
  const rest = prefixLength & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (network.address.bytes[whole] & mask) === (address.bytes[whole] & mask);
}

/** An IPv4 address from 4 of `bytes` starting at `offset`. */
export function ipv4At(bytes: Uint8Array, offset: number): IpAddress {
  return { family: 4, bytes: bytes.slice(offset, offset + 4) };
}

/** Dotted decimal for IPv4; for IPv6 the eight groups in hex (uncompressed: only messages show it). */
export function formatIpAddress(address: IpAddress): string {
  if (address.family === 4) return address.bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((address.bytes[i] << 8) | address.bytes[i + 1]).toString(16));
  return groups.join(':');
}
