//! `ipv4` and `ipv6`: addresses outside loopback, the private and link-local ranges, the
//! documentation ranges and the other special ones, written in the documentation ranges
//! (`192.0.2.1`, `198.51.100.1`, ...; `2001:db8::1`, ...).

use once_cell::sync::Lazy;
use regex::Regex;
use std::net::{Ipv4Addr, Ipv6Addr};

static V4: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"(?-u)\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}").expect("valid regex"));

static V6: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?-u)[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}").expect("valid regex")
});

/// The IPv4 documentation ranges (RFC 5737) the pseudonyms are numbered through, 254
/// addresses each, then the benchmarking range 198.18.0.0/15.
const V4_RANGES: [[u8; 3]; 3] = [[192, 0, 2], [198, 51, 100], [203, 0, 113]];

/// The IPv4 addresses in `s`.
pub(super) fn find_v4(s: &str, out: &mut Vec<super::Hit>) {
    for m in V4.find_iter(s) {
        let (start, end) = (m.start(), m.end());
        let b = s.as_bytes();
        // Not part of a longer run of digits and dots (`1.2.3.4.5`, `10.1.2.3.4`), not a
        // version (`v1.2.3.4`, `1.2.3.4-beta`).
        if !super::bounded(s, start, end, b"._")
            || (start > 0 && matches!(b[start - 1], b'-' | b'+'))
            || (end < b.len() && matches!(b[end], b'-' | b'+'))
        {
            continue;
        }
        let text = m.as_str();
        let octets: Vec<&str> = text.split('.').collect();
        // A leading zero is no address (`01.02.03.04`), and four single digits read as a
        // version (`1.2.3.4`) more often than as an address.
        if octets.iter().any(|o| o.len() > 1 && o.starts_with('0'))
            || octets.iter().all(|o| o.len() == 1)
        {
            continue;
        }
        let Ok(addr) = text.parse::<Ipv4Addr>() else {
            continue;
        };
        let number = numbered_v4(addr);
        if number.is_none() && special_v4(addr) {
            continue;
        }
        out.push(super::Hit::new(
            start,
            end,
            super::Category::Ipv4,
            addr.to_string(),
            number,
        ));
    }
}

/// Loopback, private, link-local, shared (100.64/10), documentation, benchmarking,
/// multicast, reserved, broadcast, this network.
fn special_v4(a: Ipv4Addr) -> bool {
    let [x, y, z, _] = a.octets();
    a.is_loopback()
        || a.is_private()
        || a.is_link_local()
        || a.is_documentation()
        || a.is_multicast()
        || a.is_broadcast()
        || x == 0
        || x >= 240
        || (x == 100 && (64..128).contains(&y))
        || (x == 198 && (18..20).contains(&y))
        || (x == 192 && y == 0 && z == 0)
}

/// The `n` of a pseudonym.
fn numbered_v4(a: Ipv4Addr) -> Option<u64> {
    let [x, y, z, w] = a.octets();
    if let Some(i) = V4_RANGES.iter().position(|r| *r == [x, y, z]) {
        return (1..=254)
            .contains(&w)
            .then(|| i as u64 * 254 + u64::from(w));
    }
    if x == 198 && (18..20).contains(&y) && (1..=254).contains(&w) {
        let block = u64::from(y - 18) * 256 + u64::from(z);
        return Some(3 * 254 + block * 254 + u64::from(w));
    }
    None
}

/// The pseudonym number `n` (from 1).
pub(super) fn pseudonym_v4(n: u64) -> String {
    let i = (n - 1) / 254;
    let w = (n - 1) % 254 + 1;
    if let Some([x, y, z]) = V4_RANGES.get(i as usize) {
        return format!("{x}.{y}.{z}.{w}");
    }
    let block = i - 3;
    format!("198.{}.{}.{w}", 18 + block / 256, block % 256)
}

/// The IPv6 addresses in `s`.
pub(super) fn find_v6(s: &str, out: &mut Vec<super::Hit>) {
    if s.bytes().filter(|b| *b == b':').count() < 2 {
        return;
    }
    // What `may_hold` promises: an address is compressed (`::`) or has seven digits.
    let digits = |t: &str| t.bytes().filter(u8::is_ascii_digit).count();
    for m in V6.find_iter(s) {
        let (start, end) = (m.start(), m.end());
        if !super::bounded(s, start, end, b":._") {
            continue;
        }
        let text = m.as_str();
        // At least three groups written: `a::b` is more often a path in code than an address.
        if text.split(':').filter(|g| !g.is_empty()).count() < 3
            || !(text.contains("::") || digits(text) >= 7)
        {
            continue;
        }
        let Ok(addr) = text.parse::<Ipv6Addr>() else {
            continue;
        };
        let number = numbered_v6(addr);
        if number.is_none() && special_v6(addr) {
            continue;
        }
        out.push(super::Hit::new(
            start,
            end,
            super::Category::Ipv6,
            addr.to_string(),
            number,
        ));
    }
}

/// Loopback, unspecified, multicast, link-local, unique local, documentation
/// (2001:db8::/32), IPv4-mapped and -compatible.
fn special_v6(a: Ipv6Addr) -> bool {
    let s = a.segments();
    a.is_loopback()
        || a.is_unspecified()
        || a.is_multicast()
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xfe00) == 0xfc00
        || (s[0] == 0x2001 && s[1] == 0x0db8)
        || s[..5].iter().all(|x| *x == 0)
}

/// The `n` of a pseudonym `2001:db8::<n in hex>`.
fn numbered_v6(a: Ipv6Addr) -> Option<u64> {
    let s = a.segments();
    (s[0] == 0x2001 && s[1] == 0x0db8 && s[2..6].iter().all(|x| *x == 0))
        .then(|| (u64::from(s[6]) << 16) | u64::from(s[7]))
        .filter(|n| *n > 0)
}

/// The pseudonym number `n`.
pub(super) fn pseudonym_v6(n: u64) -> String {
    let addr = Ipv6Addr::new(
        0x2001,
        0x0db8,
        0,
        0,
        0,
        0,
        (n >> 16) as u16,
        (n & 0xffff) as u16,
    );
    addr.to_string()
}
