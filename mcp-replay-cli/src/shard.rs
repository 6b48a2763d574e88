//! `--partition count:K/N` and `--partition hash:K/N`, with cargo nextest's meaning: the
//! fixtures split over N shards (CI machines), each fixture in exactly one, the same one in
//! every run and on every machine.
//!
//! - `count:K/N`: the fixtures as given (a shell's glob sorts them), the i-th (from 0) in
//!   shard `i % N + 1`: shards differ by one fixture at most.
//! - `hash:K/N`: shard `hash(path) % N + 1`, the hash FNV-1a 64 of the path as given: a
//!   fixture stays in its shard when others are added or removed.
//!
//! Pure: no I/O.

use std::fmt;

/// How a run's fixtures are split over shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Partition {
    by: By,
    /// This shard, 1-based.
    shard: u64,
    /// How many shards.
    total: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum By {
    Count,
    Hash,
}

impl Partition {
    /// Reads `count:K/N` or `hash:K/N` (1 <= K <= N).
    pub(crate) fn parse(text: &str) -> Result<Partition, String> {
        let usage =
            || "write count:K/N or hash:K/N, shard K of N (1 <= K <= N), e.g. hash:1/3".to_owned();
        let (by, rest) = text.split_once(':').ok_or_else(usage)?;
        let by = match by {
            "count" => By::Count,
            "hash" => By::Hash,
            _ => return Err(usage()),
        };
        let (k, n) = rest.split_once('/').ok_or_else(usage)?;
        let (shard, total) = match (k.parse::<u64>(), n.parse::<u64>()) {
            (Ok(k), Ok(n)) if (1..=n).contains(&k) => (k, n),
            _ => return Err(usage()),
        };
        Ok(Partition { by, shard, total })
    }

    /// Does the fixture at `index` (among all given), named `path`, belong to this shard?
    pub(crate) fn includes(&self, index: usize, path: &str) -> bool {
        let bucket = match self.by {
            By::Count => index as u64 % self.total,
            By::Hash => fnv1a(path.as_bytes()) % self.total,
        };
        bucket + 1 == self.shard
    }
}

/// `count:2/3`, as the JUnit suite's name says it.
impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by = match self.by {
            By::Count => "count",
            By::Hash => "hash",
        };
        write!(f, "{by}:{}/{}", self.shard, self.total)
    }
}

/// FNV-1a, 64 bits: the same on every machine and Rust version (std's hashers are not).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("fixtures/f{i:03}.jsonl")).collect()
    }

    #[test]
    fn every_fixture_is_in_exactly_one_shard_either_way() {
        let all = paths(50);
        for by in ["count", "hash"] {
            let shards: Vec<Partition> = (1..=4)
                .map(|k| Partition::parse(&format!("{by}:{k}/4")).unwrap())
                .collect();
            let mut sizes = [0usize; 4];
            for (i, p) in all.iter().enumerate() {
                let homes: Vec<usize> = (0..4).filter(|&s| shards[s].includes(i, p)).collect();
                assert_eq!(homes.len(), 1, "{by}: {p} in {homes:?}");
                sizes[homes[0]] += 1;
            }
            assert!(sizes.iter().all(|&s| s > 0), "{by}: {sizes:?}");
            if by == "count" {
                assert_eq!(sizes, [13, 13, 12, 12]);
            }
        }
    }

    #[test]
    fn a_hash_shard_is_stable_when_other_fixtures_come_and_go() {
        let shard = Partition::parse("hash:2/3").unwrap();
        let all = paths(30);
        let before: Vec<&String> = all
            .iter()
            .enumerate()
            .filter(|(i, p)| shard.includes(*i, p))
            .map(|(_, p)| p)
            .collect();
        // Half the fixtures given, at other indexes: each kept one stays in its shard.
        let fewer: Vec<&String> = all.iter().step_by(2).collect();
        for (i, p) in fewer.iter().enumerate() {
            assert_eq!(shard.includes(i, p), before.contains(p), "{p}");
        }
        // FNV-1a's published test vectors: the same hash on every machine.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn a_malformed_partition_says_how_to_write_one() {
        for bad in [
            "2/3",
            "count:0/3",
            "count:4/3",
            "slice:1/2",
            "hash:1",
            "hash:a/b",
        ] {
            let e = Partition::parse(bad).unwrap_err();
            assert!(e.contains("count:K/N or hash:K/N"), "{bad}: {e}");
        }
        assert_eq!(
            Partition::parse("count:2/3").unwrap().to_string(),
            "count:2/3"
        );
    }
}
