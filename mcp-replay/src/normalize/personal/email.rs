//! `email`: e-mail addresses, written `user<n>@example.invalid`.

use once_cell::sync::Lazy;
use regex::Regex;

static EMAIL: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?-u)[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+",
    )
    .expect("valid regex")
});

/// The domain every pseudonym is in (RFC 2606: `.invalid` is never a real address).
const DOMAIN: &str = "example.invalid";

/// Endings of names that are files, not top-level domains (`icon@2x.png`).
const FILE_ENDINGS: [&str; 16] = [
    "png", "jpg", "jpeg", "gif", "svg", "webp", "js", "ts", "mjs", "json", "md", "txt", "html",
    "css", "rs", "py",
];

/// Local parts of addresses that name a service account, not a person (`git@github.com`).
const SERVICE_LOCALS: [&str; 3] = ["git", "noreply", "no-reply"];

/// The e-mail addresses in `s`, as `(start, end, canonical form)`.
pub(super) fn find(s: &str, out: &mut Vec<super::Hit>) {
    if !s.contains('@') {
        return;
    }
    for m in EMAIL.find_iter(s) {
        let text = m.as_str();
        let (local, domain) = text.rsplit_once('@').expect("the regex has an @");
        let tld = domain.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        if tld.len() < 2
            || !tld.bytes().all(|b| b.is_ascii_alphabetic())
            || FILE_ENDINGS.contains(&tld.as_str())
            || SERVICE_LOCALS.contains(&local.to_ascii_lowercase().as_str())
            || local.starts_with('.')
        {
            continue;
        }
        let canonical = text.to_ascii_lowercase();
        let number = numbered(&canonical);
        if number.is_none() && reserved(&canonical) {
            continue;
        }
        out.push(super::Hit::new(
            m.start(),
            m.end(),
            super::Category::Email,
            canonical,
            number,
        ));
    }
}

/// The `n` of a pseudonym `user<n>@example.invalid`.
fn numbered(canonical: &str) -> Option<u64> {
    let local = canonical.strip_suffix(DOMAIN)?.strip_suffix('@')?;
    super::number_after(local, "user")
}

/// Is the address in a domain reserved for examples and tests (RFC 2606, RFC 6761)?
fn reserved(canonical: &str) -> bool {
    let domain = canonical.rsplit_once('@').map_or("", |(_, d)| d);
    ["example.com", "example.net", "example.org", "localhost"].contains(&domain)
        || [".example", ".invalid", ".test", ".localhost", ".local"]
            .iter()
            .any(|end| domain.ends_with(end))
        || ["example.com", "example.net", "example.org"]
            .iter()
            .any(|d| domain.ends_with(&format!(".{d}")))
}

/// The pseudonym number `n`.
pub(super) fn pseudonym(n: u64) -> String {
    format!("user{n}@{DOMAIN}")
}
