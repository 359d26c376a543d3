import { ipFamily, ipv4InIpv6, IpNetwork, parseIpNetwork } from './ip-address';

/**
 * Which addresses are not globally reachable unicast addresses. The reference is IANA's registries: the IPv4
 * and IPv6 Special-Purpose Address Registries (RFC 6890; every entry whose "Globally Reachable" is False),
 * the IPv4 Multicast and IPv6 Multicast Address Space registries, and the IPv6 Address Space registry, in which
 * only 2000::/3 is global unicast (everything else is reserved, unique-local, link-local or multicast).
 *
 * Two deliberate departures, both stricter: the registries' few globally reachable anycast entries nested in
 * the IETF protocol assignment blocks (192.0.0.0/24, 2001::/23: PCP and TURN anycast, AMT, AS112-v6, ORCHIDv2,
 * drone remote ID) are refused with their block, since no webhook receiver lives there; and Teredo (2001::/32,
 * in the same block) is refused rather than judged by its obfuscated client address.
 */
export interface SpecialPurposeRange {
  readonly network: IpNetwork;
  /** The registry's CIDR, as the registry writes it. */
  readonly cidr: string;
  /** What the range is for, in words an administrator recognises. */
  readonly name: string;
}

const range = (cidr: string, name: string): SpecialPurposeRange => {
  const network = parseIpNetwork(cidr);
  if (network === undefined) throw new Error(`not a CIDR: ${cidr}`);
  return { network, cidr, name };
};

const IPV4_RANGES: readonly SpecialPurposeRange[] = [
  range('0.0.0.0/8', '"this network"'),
  range('10.0.0.0/8', 'private-use'),
  range('100.64.0.0/10', 'shared address space (carrier-grade NAT)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local (cloud metadata services)'),
  range('172.16.0.0/12', 'private-use'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  range('192.88.99.0/24', 'deprecated 6to4 relay anycast'),
  range('192.168.0.0/16', 'private-use'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  range('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
  range('255.255.255.255/32', 'limited broadcast'),
];

const IPV6_RANGES: readonly SpecialPurposeRange[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::/96', 'IPv4-compatible (deprecated)'),
  range('64:ff9b:1::/48', 'local-use IPv4/IPv6 translation'),
  range('100::/64', 'discard-only'),
  range('100:0:0:1::/64', 'dummy prefix'),
  range('2001::/23', 'IETF protocol assignments (Teredo, benchmarking, ORCHID, …)'),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
  range('5f00::/16', 'segment routing SIDs'),
  range('fc00::/7', 'unique-local'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local (deprecated)'),
  range('ff00::/8', 'multicast'),
];

/** The IPv6 Address Space registry's global unicast block; everything outside it is refused. */
const IPV6_GLOBAL_UNICAST = range('2000::/3', 'global unicast');
const IPV6_OUTSIDE_GLOBAL_UNICAST = range('::/0', 'reserved (outside the global unicast block 2000::/3)');

/** The most specific non-global range holding `address` itself (an embedded IPv4 is not looked at). */
export function specialPurposeRange(address: string): SpecialPurposeRange | undefined {
  const family = ipFamily(address);
  const ranges = family === 4 ? IPV4_RANGES : IPV6_RANGES;
  let found: SpecialPurposeRange | undefined;
  for (const candidate of ranges) {
    if (
      candidate.network.contains(address) &&
      (found === undefined || candidate.network.prefixLength > found.network.prefixLength)
    ) {
      found = candidate;
    }
  }
  if (found === undefined && family === 6 && !IPV6_GLOBAL_UNICAST.network.contains(address)) {
    return IPV6_OUTSIDE_GLOBAL_UNICAST;
  }
  return found;
}

/** An IPv6 form that carries an IPv4 address the traffic really goes to. */
export interface EmbeddedIpv4 {
  /** The IPv4 address, dotted. */
  readonly ipv4: string;
  readonly form: 'IPv4-mapped' | 'NAT64' | '6to4';
}

/** Each form: its prefix, and the 16-bit group where the IPv4 address starts. */
const EMBEDDING_FORMS: ReadonlyArray<{
  form: EmbeddedIpv4['form'];
  range: SpecialPurposeRange;
  group: number;
}> = [
  { form: 'IPv4-mapped', range: range('::ffff:0:0/96', 'IPv4-mapped'), group: 6 },
  { form: 'NAT64', range: range('64:ff9b::/96', 'IPv4/IPv6 translation'), group: 6 },
  { form: '6to4', range: range('2002::/16', '6to4'), group: 1 },
];

/**
 * The IPv4 address an IPv6 address stands for: IPv4-mapped (`::ffff:a.b.c.d`, a dual-stack socket talks
 * IPv4 to it), the NAT64 well-known prefix (`64:ff9b::a.b.c.d`, RFC 6052: the translator forwards to it) and
 * 6to4 (`2002:aabb:ccdd::/48`, RFC 3056: a relay forwards to a.b.c.d). Such an address is as reachable as
 * its IPv4 address, so it is judged as that address.
 */
export function embeddedIpv4(address: string): EmbeddedIpv4 | undefined {
  if (ipFamily(address) !== 6) return undefined;
  const embedding = EMBEDDING_FORMS.find(({ range }) => range.network.contains(address));
  return embedding && { ipv4: ipv4InIpv6(address, embedding.group), form: embedding.form };
}
