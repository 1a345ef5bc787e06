import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { addressKey, clientAddress, ipv6Subnet, proxyTrust, type TrustProxy } from '../../src/http/client-address.js';

function fakeRequest(peer: string | undefined, forwardedFor?: string | string[]): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe('clientAddress', () => {
  it.each<[string, TrustProxy, string | undefined, string | string[] | undefined, string | undefined]>([
    ['no trust: the peer, whatever the header says', false, '10.0.0.1', '6.6.6.6', '10.0.0.1'],
    ['no trust, IPv4-mapped peer: written as IPv4', false, '::ffff:127.0.0.1', undefined, '127.0.0.1'],
    ['no peer (connection gone): no address', false, undefined, undefined, undefined],
    ['0 hops is no trust', 0, '10.0.0.1', '6.6.6.6', '10.0.0.1'],
    ['1 hop: the right-most entry', 1, '10.0.0.1', '6.6.6.6, 203.0.113.7', '203.0.113.7'],
    ['2 hops: the second from the right', 2, '10.0.0.1', '6.6.6.6, 203.0.113.7, 10.0.0.2', '203.0.113.7'],
    ['hops beyond the chain: the left-most', 3, '10.0.0.1', '203.0.113.7', '203.0.113.7'],
    ['1 hop, no header: the peer', 1, '10.0.0.1', undefined, '10.0.0.1'],
    ['repeated headers are one list', 1, '10.0.0.1', ['6.6.6.6', '203.0.113.7'], '203.0.113.7'],
    [
      'a garbage entry ends the walk at the address nearer the server',
      2,
      '10.0.0.1',
      '6.6.6.6, not-an-ip, 203.0.113.7',
      '203.0.113.7',
    ],
    [
      'trusted list: first untrusted from the right',
      ['10.0.0.0/8'],
      '10.0.0.1',
      '6.6.6.6, 203.0.113.7, 10.1.2.3',
      '203.0.113.7',
    ],
    ['trusted list: untrusted peer means the header is ignored', ['10.0.0.0/8'], '192.0.2.9', '6.6.6.6', '192.0.2.9'],
    ['trusted list: all trusted -> the left-most', ['10.0.0.0/8'], '10.0.0.1', '10.9.9.9', '10.9.9.9'],
    ['trusted list: IPv6 proxies', ['::1'], '::1', '2001:db8::5', '2001:db8::5'],
    [
      'trusted list: mapped IPv4 peer matches an IPv4 entry',
      ['127.0.0.1'],
      '::ffff:127.0.0.1',
      '198.51.100.4',
      '198.51.100.4',
    ],
  ])('%s', (_, trust, peer, header, expected) => {
    expect(clientAddress(fakeRequest(peer, header), proxyTrust(trust))).toBe(expected);
  });

  it.each<[unknown, RegExp]>([
    [-1, /whole number of hops/],
    [1.5, /whole number of hops/],
    [['10.0.0.300'], /IP address or CIDR/],
    [['10.0.0.0/33'], /IP address or CIDR/],
    [['10.0.0.0/8/1'], /IP address or CIDR/],
    [['proxy.local'], /IP address or CIDR/],
    ['yes', /false, a number of hops or a list/],
  ])('refuses trustProxy %j', (trust, message) => {
    expect(() => proxyTrust(trust as TrustProxy)).toThrow(message);
  });
});

describe('addressKey', () => {
  it.each<[string, string, number | false, string]>([
    ['IPv4: the address itself', '203.0.113.7', 64, '203.0.113.7'],
    [
      'IPv4-mapped IPv6 is IPv4, never masked into ::/64 with every other IPv4 client',
      '::ffff:203.0.113.7',
      64,
      '203.0.113.7',
    ],
    ['IPv4-mapped IPv6, upper case', '::FFFF:198.51.100.4', 56, '198.51.100.4'],
    ['IPv6: its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64, '2001:db8:1:2::/64'],
    ['IPv6, another address of the same /64: the same key', '2001:db8:1:2::1', 64, '2001:db8:1:2::/64'],
    ['IPv6, the next /64: another key', '2001:db8:1:3::1', 64, '2001:db8:1:3::/64'],
    ['IPv6 /56: bits inside the 4th group are cut', '2001:db8:1:2ff::1', 56, '2001:db8:1:200::/56'],
    ['IPv6 /48', '2001:db8:1:ffff::1', 48, '2001:db8:1::/48'],
    ['IPv6 /128: the address', '2001:db8::1', 128, '2001:db8::1/128'],
    ['IPv6, false: the address, not grouped', '2001:DB8::1', false, '2001:db8::1'],
    ['IPv6 loopback', '::1', 64, '::/64'],
    ['IPv6 with a zone index: the zone is dropped', 'fe80::1%eth0', 64, 'fe80::/64'],
    ['IPv6 with an embedded IPv4 tail (NAT64)', '64:ff9b::192.0.2.33', 96, '64:ff9b::/96'],
  ])('%s', (_, address, subnet, expected) => {
    expect(addressKey(address, subnet)).toBe(expected);
  });

  it.each<[unknown, RegExp]>([
    [0, /ipv6Subnet/],
    [129, /ipv6Subnet/],
    [64.5, /ipv6Subnet/],
    ['64', /ipv6Subnet/],
    [true, /ipv6Subnet/],
  ])('refuses ipv6Subnet %j', (value, message) => {
    expect(() => ipv6Subnet(value as number)).toThrow(message);
  });

  it('defaults ipv6Subnet to 64', () => {
    expect(ipv6Subnet(undefined)).toBe(64);
    expect(ipv6Subnet(false)).toBe(false);
  });
});
