//! A secret scanner for JSON values: fixtures are committed, so they must never hold a
//! credential.
//!
//! [`scan`] walks a value and reports every string that looks like a credential, by JSON
//! path and rule id, never by content: a [`SecretFinding`] holds no part of the secret, so
//! it is safe to print, log and put in an error.
//!
//! ## Token rules
//!
//! Each token rule is a gitleaks-class pattern (after gitleaks' `config/gitleaks.toml`)
//! matched anywhere inside a string, in any string of the value, object keys included. A
//! token must start at a word boundary (`xghp_…` or `my_ghp_…` is not a GitHub token) and,
//! where the token has a fixed length or alphabet, must not run on into more token
//! characters. Some rules also want a minimum Shannon entropy of the token (bits per
//! character, the thresholds gitleaks uses), so that `ghp_xxxxxxxx…` in a document is not
//! a finding while any machine-made token is.
//!
//! | id | what | shape | min. entropy |
//! | --- | --- | --- | --- |
//! | `github-pat` | GitHub personal access token | `ghp_` + 36 alphanumerics | 3 |
//! | `github-oauth` | GitHub OAuth access token | `gho_` + 36 alphanumerics | 3 |
//! | `github-app-token` | GitHub App token | `ghu_` or `ghs_` + 36 alphanumerics | 3 |
//! | `github-refresh-token` | GitHub refresh token | `ghr_` + 36 alphanumerics | 3 |
//! | `github-fine-grained-pat` | GitHub fine-grained personal access token | `github_pat_` + 82 of `[0-9A-Za-z_]` | 3 |
//! | `gitlab-pat` | GitLab personal access token | `glpat-` + 20 of `[0-9A-Za-z_-]` | 3 |
//! | `aws-access-key-id` | AWS access key id | `AKIA`, `ASIA`, `ABIA`, `ACCA` or `A3T?` + 16 of `[A-Z0-9]`; not `…EXAMPLE` | 3 |
//! | `slack-token` | Slack bot, user, app or legacy token | `xoxb-123…-…`, `xoxp-…`, `xoxa-…`, `xoxs-…`, `xapp-1-…` | 2 |
//! | `slack-webhook-url` | Slack webhook URL | `https://hooks.slack.com/services/T…/B…/…` (43 to 56 characters after `services/`) | 3 (of the part after `services/`) |
//! | `stripe-access-token` | Stripe secret or restricted key | `sk_` or `rk_`, then `live_`, `test_` or `prod_`, then 10 to 99 alphanumerics | 2 |
//! | `gcp-api-key` | Google API key | `AIza` + 35 of `[0-9A-Za-z_-]` | 4 |
//! | `openai-api-key` | OpenAI API key | `sk-proj-`, `sk-svcacct-` or `sk-admin-` + 40 or more of `[0-9A-Za-z_-]`; `sk-` + 20 + `T3BlbkFJ` + 20 | 3 |
//! | `anthropic-api-key` | Anthropic API key | `sk-ant-api03-` + 93 of `[0-9A-Za-z_-]` + `AA` | none |
//! | `anthropic-admin-api-key` | Anthropic admin API key | `sk-ant-admin01-` + 93 of `[0-9A-Za-z_-]` + `AA` | none |
//! | `jwt` | JSON Web Token | `ey…` `.` `ey…` `.` signature (10 or more base64url characters each; the signature may be empty) | 3 |
//! | `private-key` | private key (PEM, OpenSSH, PGP) | `-----BEGIN … PRIVATE KEY-----` (or `KEY BLOCK`), then within 300 characters a run of 40 or more base64 characters | 3 (of that run) |
//! | `npm-access-token` | npm access token | `npm_` + 36 of `[0-9a-z]`, any case | 2 |
//! | `huggingface-access-token` | Hugging Face access token | `hf_` + 34 letters | 2 |
//! | `huggingface-organization-api-token` | Hugging Face organization API token | `api_org_` + 34 letters | 2 |
//! | `sendgrid-api-token` | SendGrid API key | `SG.` + 22 + `.` + 43 of `[0-9A-Za-z_-]` | 2 |
//! | `vault-service-token` | HashiCorp Vault service token | `hvs.` + 90 to 120 of `[0-9A-Za-z_-]` | 3.5 |
//! | `vault-batch-token` | HashiCorp Vault batch token | `hvb.` + 138 to 300 of `[0-9A-Za-z_-]` | 4 |
//! | `pypi-upload-token` | PyPI upload token | `pypi-AgEIcHlwaS5vcmc` + 50 or more of `[0-9A-Za-z_-]` | 3 |
//! | `sensitive-key` | credential under a credential's key name | `"password": "…"`, `"Authorization": "Bearer …"` (see below) | 3 |
//!
//! ## The key-name rule
//!
//! `sensitive-key` flags the string value of an object key that names a credential, when
//! the value looks machine-made. The key is compared lowercased with `-`, `_`, `.` and
//! spaces removed (`X-Api-Key` is `xapikey`). It names a credential when it is one of
//! `token`, `idtoken`, `pwd`, `cookie`, `setcookie`, `credential`, `credentials`, or when
//! it is or ends with one of `password`, `passwd`, `passphrase`, `secret`, `apikey`,
//! `apitoken`, `accesstoken`, `refreshtoken`, `authtoken`, `bearertoken`, `sessiontoken`,
//! `privatekey`, `secretkey`, `secretaccesskey`, `authorization` (so `dbPassword`,
//! `client_secret`, `x-api-key`, `AWS_SECRET_ACCESS_KEY` and `Proxy-Authorization` do).
//! Not flagged, on purpose: `progressToken`, `pageToken`, `nextCursor`, `maxTokens`,
//! `tokenCount`, `secretName`, `publicKey`, `csrfToken`, `Mcp-Session-Id`: ids, counters
//! and opaque cursors that are random but grant nothing (a bare `token` suffix would
//! flag every MCP progress token).
//!
//! The value looks machine-made when, after an authorization scheme (`Bearer `, `Basic `,
//! `Token `, `Bot `, `Digest `, `Negotiate `, `ApiKey `) is stripped, it is at least 8
//! characters long with a Shannon entropy of at least 3.0 bits per character. For `Cookie`
//! each cookie's value is judged on its own, for `Set-Cookie` the first one only (so
//! `theme=dark; Path=/` is not a finding). A value is never flagged when it contains a
//! placeholder (`Bearer <TOKEN>`), is an environment reference (`${GITHUB_TOKEN}`,
//! `$TOKEN`, `%TOKEN%`, `{{token}}`), or says it is fake (it contains `example`, `dummy`,
//! `fake`, `placeholder`, `redacted`, `changeme`, `your`, `xxxx`, `****` or `[masked: `,
//! the mark of a value a report masked, any case).
//! 3.0 bits per character lets through the low-entropy test passwords fixtures are full
//! of (`hunter2hunter2` 2.8, `changeme` 2.75, `test1234` 2.75) and catches random
//! tokens (a random 12-character alphanumeric string is above 3.0 nineteen times in twenty;
//! 16 or more characters practically always). An 8-character value must have 8 different
//! characters to reach it. When a token rule already flags the value, only the token
//! rule is reported.
//!
//! ## Placeholders
//!
//! A string that is a placeholder as a whole (`<REQUEST_ID>`, `<REQUEST_ID:2>`,
//! `<TIMESTAMP>`, `<REDACTED>`: `<`, an uppercase letter, uppercase letters, digits and
//! `_`, an optional `:tag` of letters, digits, `_`, `.` and `-`, `>`; the grammar the
//! normalization rules use, `is_placeholder` in `normalize/placeholder.rs`) never trips any rule.
//!
//! ## Paths
//!
//! A finding's path is in selector form, relative to the scanned value: `.` for the value
//! itself, `.result.content[0].text`, `.params.headers["x-api-key"]` (a key that is not
//! made only of `[A-Za-z0-9_/-]` is written as a JSON string in brackets; right under the
//! root it follows the root's `.`, as does an index: `.["a b"]`, `.[1]`). It is the path
//! a [`Difference`](crate::Difference) shows and parses as a selector for that place. A
//! key that itself trips a token rule is reported at its own path written as
//! `["<REDACTED>"]`, and the paths below it use that form too, so no path ever holds a
//! secret.

use super::placeholder::{contains_placeholder, is_placeholder};
use crate::json::path::{push_step, rendered_path, PathSegment};
use once_cell::sync::Lazy;
use regex::Regex;
use serde_json::Value;

/// One secret found in a JSON value. Never holds the secret itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFinding {
    /// Where: selector-form path relative to the scanned value: `.result.content[0].text`,
    /// `.params.headers["x-api-key"]` (keys that are not `[A-Za-z0-9_/-]+` are written as
    /// `["..."]` with JSON string escaping); `.` for the root, `.[1]` for its element 1.
    pub path: String,
    /// The rule's stable id, e.g. `"github-pat"`, `"aws-access-key-id"`, `"sensitive-key"`.
    pub rule: &'static str,
    /// A short human description of the rule (`"GitHub personal access token"`).
    pub description: &'static str,
}

/// Every secret in `value` (strings anywhere, object keys included, and the values of
/// credential-named keys for the `sensitive-key` rule), in a stable order: document order
/// with object keys sorted; within one string, by position, each rule once.
pub fn scan(value: &Value) -> Vec<SecretFinding> {
    let mut out = Vec::new();
    let mut path = String::new();
    walk(value, &mut path, &mut out);
    out
}

/// The rule a single string trips, if any (token rules only, not the key-name rule): the
/// one whose match starts first. Returns `(rule id, description)`.
pub fn scan_str(text: &str) -> Option<(&'static str, &'static str)> {
    token_hits(text)
        .first()
        .map(|&i| (RULES[i].id, RULES[i].description))
}

/// How many characters of a secret a masked report shows (`ghp_…[masked: github-pat]`).
const SHOWN: usize = 4;

/// Where the token rules find secrets in `text`: the byte ranges of the tokens (for a
/// private key, from its `-----BEGIN` line to its `-----END` line, or the end of the text),
/// each with its rule id, in order and without overlaps.
fn token_spans(text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
    let Some(present) = rules_with_keywords(text) else {
        return Vec::new();
    };
    if is_placeholder(text) {
        return Vec::new();
    }
    let mut spans: Vec<(std::ops::Range<usize>, &'static str)> = Vec::new();
    for (i, rule) in RULES.iter().enumerate().filter(|&(i, _)| present[i]) {
        let regex = RULE_REGEXES[i]
            .get_or_init(|| compile(rule).expect("the secret rules are valid patterns"));
        for caps in regex.captures_iter(text) {
            let Some(whole) = caps.get(0) else { continue };
            let token = caps.get(1).unwrap_or(whole);
            let accepted = entropy(token.as_str()) >= rule.min_entropy
                && !rule.examples.iter().any(|e| token.as_str().contains(e));
            if !accepted {
                continue;
            }
            let range = if rule.id == "private-key" {
                let end = END_OF_KEY
                    .find(&text[whole.end()..])
                    .map_or(text.len(), |m| whole.end() + m.end());
                whole.start()..end
            } else {
                token.range()
            };
            spans.push((range, rule.id));
        }
    }
    spans.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
    let mut merged: Vec<(std::ops::Range<usize>, &'static str)> = Vec::new();
    for (range, rule) in spans {
        match merged.last_mut() {
            Some((last, _)) if range.start < last.end => last.end = last.end.max(range.end),
            _ => merged.push((range, rule)),
        }
    }
    merged
}

/// The end of a PEM, OpenSSH or PGP private key.
static END_OF_KEY: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"-----END[ A-Z0-9_-]{0,100}-----").expect("valid end-of-key pattern"));

/// `secret` as a masked report shows it: its first characters and the rule,
/// `ghp_…[masked: github-pat]`.
fn masked(secret: &str, rule: &str) -> String {
    let shown: String = secret.chars().take(SHOWN).collect();
    format!("{shown}…[masked: {rule}]")
}

/// `text` with every secret the token rules find masked (see [`masked`]); borrowed when
/// it holds none. For report outputs: a report prints live messages, and CI logs are read
/// by many.
pub(crate) fn mask_text(text: &str) -> std::borrow::Cow<'_, str> {
    let spans = token_spans(text);
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, rule) in spans {
        out.push_str(&text[at..range.start]);
        out.push_str(&masked(&text[range.clone()], rule));
        at = range.end;
    }
    out.push_str(&text[at..]);
    std::borrow::Cow::Owned(out)
}

/// `value` with every secret the scanner would refuse masked: tokens in any string or
/// key ([`mask_text`]), and the value of a credential-named key (`sensitive-key`) as
/// `Bearer …[masked: sensitive-key]` (its authorization scheme kept).
pub(crate) fn mask_value(value: &Value) -> Value {
    mask_under(None, value)
}

/// [`mask_value`] of `value`, found under the object key `key` (the key-name rule judges
/// a string by the key it is under).
pub(crate) fn mask_under(key: Option<&str>, value: &Value) -> Value {
    match value {
        Value::String(text) => {
            if let Some(key) = key {
                if token_spans(text).is_empty()
                    && is_sensitive_key(key)
                    && credential_like(key, text)
                {
                    let bare = strip_scheme(text.trim());
                    let scheme = text.trim().strip_suffix(bare).unwrap_or_default();
                    return Value::String(format!("{scheme}…[masked: {SENSITIVE_KEY}]"));
                }
            }
            Value::String(mask_text(text).into_owned())
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| mask_under(None, v)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (mask_text(k).into_owned(), mask_under(Some(k), v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Ids of all rules (the token rules in the order of the table, then `sensitive-key`), for
/// docs and for validating allow-list entries.
pub fn rule_ids() -> &'static [&'static str] {
    static IDS: Lazy<Vec<&'static str>> =
        Lazy::new(|| RULES.iter().map(|r| r.id).chain([SENSITIVE_KEY]).collect());
    &IDS
}

/// The id of the key-name rule.
const SENSITIVE_KEY: &str = "sensitive-key";
const SENSITIVE_KEY_DESCRIPTION: &str = "credential under a credential's key name";

/// A token rule. `pattern` is compiled in ASCII mode (`(?-u)` is prepended): `\w`, `\b`,
/// `\s` and `(?i)` are ASCII-only, which keeps the large counted repetitions small.
struct Rule {
    id: &'static str,
    description: &'static str,
    /// Literals (matched case-insensitively) one of which every match contains: the
    /// prefilter runs the pattern only when one is present.
    keywords: &'static [&'static str],
    /// Group 1, when present, is the token whose entropy is measured.
    pattern: &'static str,
    /// Minimum Shannon entropy of the token in bits per character; 0 for none.
    min_entropy: f64,
    /// A token containing one of these is a documented example, not a secret.
    examples: &'static [&'static str],
}

/// The token rules, in the order of the module docs' table. A tail
/// `(?:$|(?u:[^…]))` means "not followed by another character of the token"; it is in
/// Unicode mode so the negated class cannot match half of a UTF-8 sequence.
const RULES: &[Rule] = &[
    Rule {
        id: "github-pat",
        description: "GitHub personal access token",
        keywords: &["ghp_"],
        pattern: r"\b(ghp_[0-9A-Za-z]{36})",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "github-oauth",
        description: "GitHub OAuth access token",
        keywords: &["gho_"],
        pattern: r"\b(gho_[0-9A-Za-z]{36})",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "github-app-token",
        description: "GitHub App token",
        keywords: &["ghu_", "ghs_"],
        pattern: r"\b((?:ghu|ghs)_[0-9A-Za-z]{36})",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "github-refresh-token",
        description: "GitHub refresh token",
        keywords: &["ghr_"],
        pattern: r"\b(ghr_[0-9A-Za-z]{36})",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "github-fine-grained-pat",
        description: "GitHub fine-grained personal access token",
        keywords: &["github_pat_"],
        pattern: r"\b(github_pat_\w{82})",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "gitlab-pat",
        description: "GitLab personal access token",
        keywords: &["glpat-"],
        pattern: r"\b(glpat-[\w-]{20})",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "aws-access-key-id",
        description: "AWS access key id",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        pattern: r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b",
        min_entropy: 3.0,
        examples: &["EXAMPLE"],
    },
    Rule {
        id: "slack-token",
        description: "Slack token",
        keywords: &["xox", "xapp-"],
        pattern: r"\b(xoxb-[0-9]{8,14}-[A-Za-z0-9-]{10,}|xox[pe](?:-[0-9]{10,13}){3}-[A-Za-z0-9-]{28,34}|xox[ar]-(?:[0-9]-)?[A-Za-z0-9]{8,48}|xox[os]-[0-9]+-[0-9]+-[0-9]+-[A-Fa-f0-9]+|xapp-[0-9]-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+)",
        min_entropy: 2.0,
        examples: &[],
    },
    Rule {
        id: "slack-webhook-url",
        description: "Slack webhook URL",
        keywords: &["hooks.slack.com"],
        pattern: r"(?:https?://)?\bhooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/]{43,56})",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "stripe-access-token",
        description: "Stripe secret or restricted API key",
        keywords: &[
            "sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_",
        ],
        pattern: r"\b((?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99})(?:$|(?u:[^A-Za-z0-9]))",
        min_entropy: 2.0,
        examples: &[],
    },
    Rule {
        id: "gcp-api-key",
        description: "Google API key",
        keywords: &["aiza"],
        pattern: r"\b(AIza[\w-]{35})(?:$|(?u:[^A-Za-z0-9_-]))",
        min_entropy: 4.0,
        examples: &[],
    },
    Rule {
        id: "openai-api-key",
        description: "OpenAI API key",
        keywords: &["t3blbkfj", "sk-proj-", "sk-svcacct-", "sk-admin-"],
        pattern: r"\b(sk-(?:proj|svcacct|admin)-[\w-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})(?:$|(?u:[^A-Za-z0-9_-]))",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "anthropic-api-key",
        description: "Anthropic API key",
        keywords: &["sk-ant-api03-"],
        pattern: r"\b(sk-ant-api03-[\w-]{93}AA)(?:$|(?u:[^A-Za-z0-9_-]))",
        min_entropy: 0.0,
        examples: &[],
    },
    Rule {
        id: "anthropic-admin-api-key",
        description: "Anthropic admin API key",
        keywords: &["sk-ant-admin01-"],
        pattern: r"\b(sk-ant-admin01-[\w-]{93}AA)(?:$|(?u:[^A-Za-z0-9_-]))",
        min_entropy: 0.0,
        examples: &[],
    },
    Rule {
        id: "jwt",
        description: "JSON Web Token",
        keywords: &[".ey"],
        pattern: r"\b(ey[\w-]{10,}\.ey[\w/\\-]{10,}\.(?:[\w/\\-]{10,}={0,2})?)(?:$|(?u:[^A-Za-z0-9_/\\=-]))",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "private-key",
        description: "private key",
        keywords: &["-----begin"],
        pattern: r"(?i:-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----)(?su:.){0,300}?([A-Za-z0-9+/=]{40,})",
        min_entropy: 3.0,
        examples: &[],
    },
    Rule {
        id: "npm-access-token",
        description: "npm access token",
        keywords: &["npm_"],
        pattern: r"\b((?i:npm_[a-z0-9]{36}))(?:$|(?u:[^A-Za-z0-9_]))",
        min_entropy: 2.0,
        examples: &[],
    },
    Rule {
        id: "huggingface-access-token",
        description: "Hugging Face access token",
        keywords: &["hf_"],
        pattern: r"\b(hf_[A-Za-z]{34})(?:$|(?u:[^A-Za-z0-9_]))",
        min_entropy: 2.0,
        examples: &[],
    },
    Rule {
        id: "huggingface-organization-api-token",
        description: "Hugging Face organization API token",
        keywords: &["api_org_"],
        pattern: r"\b(api_org_[A-Za-z]{34})(?:$|(?u:[^A-Za-z0-9_]))",
        min_entropy: 2.0,
        examples: &[],
    },
    Rule {
        id: "sendgrid-api-token",
        description: "SendGrid API key",
        keywords: &["sg."],
        pattern: r"\b(SG\.[\w-]{22}\.[\w-]{43})(?:$|(?u:[^A-Za-z0-9_-]))",
        min_entropy: 2.0,
        examples: &[],
    },
    Rule {
        id: "vault-service-token",
        description: "HashiCorp Vault service token",
        keywords: &["hvs."],
        pattern: r"\b(hvs\.[\w-]{90,120})(?:$|(?u:[^A-Za-z0-9_-]))",
        min_entropy: 3.5,
        examples: &[],
    },
    Rule {
        id: "vault-batch-token",
        description: "HashiCorp Vault batch token",
        keywords: &["hvb."],
        pattern: r"\b(hvb\.[\w-]{138,300})(?:$|(?u:[^A-Za-z0-9_-]))",
        min_entropy: 4.0,
        examples: &[],
    },
    Rule {
        id: "pypi-upload-token",
        description: "PyPI upload token",
        keywords: &["pypi-ageichlwas5vcmc"],
        pattern: r"\b(pypi-AgEIcHlwaS5vcmc[\w-]{50,})",
        min_entropy: 3.0,
        examples: &[],
    },
];

/// Key names (normalized: lowercase, no `-`, `_`, `.`, spaces) that name a credential.
const SENSITIVE_NAMES: &[&str] = &[
    "token",
    "idtoken",
    "pwd",
    "cookie",
    "setcookie",
    "credential",
    "credentials",
];

/// Normalized key endings that name a credential (the ending alone does too).
const SENSITIVE_SUFFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "apikey",
    "apitoken",
    "accesstoken",
    "refreshtoken",
    "authtoken",
    "bearertoken",
    "sessiontoken",
    "privatekey",
    "secretkey",
    "secretaccesskey",
    "authorization",
];

/// Authorization schemes stripped from a value before it is judged.
const SCHEMES: &[&str] = &[
    "bearer",
    "basic",
    "token",
    "bot",
    "digest",
    "negotiate",
    "apikey",
];

/// Lowercase words that mark a value as made up.
const FAKE_MARKERS: &[&str] = &[
    "example",
    "dummy",
    "fake",
    "placeholder",
    "redacted",
    "changeme",
    "your",
    "xxxx",
    "****",
    "[masked: ",
];

/// Minimum length and entropy of a `sensitive-key` value.
const MIN_VALUE_LEN: usize = 8;
const MIN_VALUE_ENTROPY: f64 = 3.0;

/// Each token rule's regex, compiled the first time a string holds one of the rule's
/// keywords: most runs never need most rules, and compiling them all would cost every test
/// process milliseconds.
static RULE_REGEXES: Lazy<Vec<once_cell::sync::OnceCell<Regex>>> = Lazy::new(|| {
    RULES
        .iter()
        .map(|_| once_cell::sync::OnceCell::new())
        .collect()
});

/// The keyword prefilter: one bit for each pair of bytes (ASCII-lowercased) that starts a
/// keyword of some rule. Built at compile time: a `RegexSet` of the keywords took 9.6M
/// instructions to build and an Aho-Corasick automaton 0.55M, in every test process (see
/// `docs/PERFORMANCE.md`), for fixtures that are mostly a few kilobytes.
static KEYWORD_STARTS: [u64; 1024] = keyword_starts();

const fn keyword_starts() -> [u64; 1024] {
    let mut table = [0u64; 1024];
    let mut r = 0;
    while r < RULES.len() {
        let keywords = RULES[r].keywords;
        let mut k = 0;
        while k < keywords.len() {
            let bytes = keywords[k].as_bytes();
            assert!(
                bytes.len() >= 2,
                "a secret rule keyword has at least two bytes"
            );
            let pair = pair_index(bytes[0], bytes[1]);
            table[pair / 64] |= 1 << (pair % 64);
            k += 1;
        }
        r += 1;
    }
    table
}

const fn pair_index(a: u8, b: u8) -> usize {
    ((a.to_ascii_lowercase() as usize) << 8) | b.to_ascii_lowercase() as usize
}

/// For each rule (index into [`RULES`]), does one of its keywords occur in `text`,
/// ASCII case-insensitively? `None` when no keyword does (the common case, no allocation).
fn rules_with_keywords(text: &str) -> Option<Vec<bool>> {
    let bytes = text.as_bytes();
    let mut present: Option<Vec<bool>> = None;
    for i in 0..bytes.len().saturating_sub(1) {
        let pair = pair_index(bytes[i], bytes[i + 1]);
        if KEYWORD_STARTS[pair / 64] & (1 << (pair % 64)) == 0 {
            continue;
        }
        let rest = &bytes[i..];
        for (r, rule) in RULES.iter().enumerate() {
            let hit = rule.keywords.iter().any(|k| {
                rest.get(..k.len())
                    .is_some_and(|start| start.eq_ignore_ascii_case(k.as_bytes()))
            });
            if hit {
                present.get_or_insert_with(|| vec![false; RULES.len()])[r] = true;
            }
        }
    }
    present
}

static REFERENCE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\{\{[^}]*\}\})$")
        .expect("valid reference pattern")
});

fn compile(rule: &Rule) -> Result<Regex, regex::Error> {
    Regex::new(&format!("(?-u){}", rule.pattern))
}

/// Indices into [`RULES`] of the rules `text` trips, ordered by where their first
/// accepted match starts (then by table order).
fn token_hits(text: &str) -> Vec<usize> {
    // Most strings hold none of the keywords: one pass of the prefilter and done.
    let Some(present) = rules_with_keywords(text) else {
        return Vec::new();
    };
    if is_placeholder(text) {
        return Vec::new();
    }
    let mut hits: Vec<(usize, usize)> = (0..RULES.len())
        .filter(|&i| present[i])
        .filter_map(|i| {
            let regex = RULE_REGEXES[i]
                .get_or_init(|| compile(&RULES[i]).expect("the secret rules are valid patterns"));
            first_accepted(i, regex, text).map(|start| (start, i))
        })
        .collect();
    hits.sort_unstable();
    hits.into_iter().map(|(_, i)| i).collect()
}

/// Where the first match of `regex` (rule `i`) that passes the rule's entropy and example
/// checks starts.
fn first_accepted(i: usize, regex: &Regex, text: &str) -> Option<usize> {
    let rule = &RULES[i];
    regex.captures_iter(text).find_map(|caps| {
        let whole = caps.get(0)?;
        let token = caps.get(1).unwrap_or(whole).as_str();
        let accepted =
            entropy(token) >= rule.min_entropy && !rule.examples.iter().any(|e| token.contains(e));
        accepted.then_some(whole.start())
    })
}

/// Shannon entropy of `text` in bits per character.
fn entropy(text: &str) -> f64 {
    let mut chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return 0.0;
    }
    chars.sort_unstable();
    let n = chars.len() as f64;
    chars
        .chunk_by(|a, b| a == b)
        .map(|run| {
            let p = run.len() as f64 / n;
            -p * p.log2()
        })
        .sum()
}

fn walk(value: &Value, path: &mut String, out: &mut Vec<SecretFinding>) {
    match value {
        Value::String(text) => {
            for i in token_hits(text) {
                out.push(finding(path, RULES[i].id, RULES[i].description));
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = path.len();
                push_step(path, PathSegment::Index(index));
                walk(item, path, out);
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (key, item) in entries {
                let len = path.len();
                match scan_str(key) {
                    Some((rule, description)) => {
                        push_step(path, PathSegment::Key("<REDACTED>"));
                        out.push(finding(path, rule, description));
                    }
                    None => push_step(path, PathSegment::Key(key)),
                }
                let before = out.len();
                walk(item, path, out);
                if let Value::String(text) = item {
                    if out.len() == before && is_sensitive_key(key) && credential_like(key, text) {
                        out.push(finding(path, SENSITIVE_KEY, SENSITIVE_KEY_DESCRIPTION));
                    }
                }
                path.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn finding(path: &str, rule: &'static str, description: &'static str) -> SecretFinding {
    SecretFinding {
        path: rendered_path(path).to_owned(),
        rule,
        description,
    }
}

/// The key lowercased, without `-`, `_`, `.` and spaces.
fn normalize_key(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.' | ' '))
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn is_sensitive_key(key: &str) -> bool {
    let key = normalize_key(key);
    SENSITIVE_NAMES.contains(&key.as_str()) || SENSITIVE_SUFFIXES.iter().any(|s| key.ends_with(s))
}

/// Whether the string value of a credential-named key looks like a real credential.
fn credential_like(key: &str, value: &str) -> bool {
    if contains_placeholder(value) {
        return false;
    }
    match normalize_key(key).as_str() {
        "cookie" => value.split(';').any(|c| looks_random(cookie_value(c))),
        "setcookie" => value
            .split(';')
            .next()
            .is_some_and(|c| looks_random(cookie_value(c))),
        _ => looks_random(strip_scheme(value.trim())),
    }
}

/// The value of one `name=value` cookie.
fn cookie_value(cookie: &str) -> &str {
    let value = cookie.split_once('=').map_or(cookie, |(_, v)| v);
    value.trim().trim_matches('"')
}

/// `value` without a leading authorization scheme (`Bearer abc` is `abc`).
fn strip_scheme(value: &str) -> &str {
    if let Some((scheme, rest)) = value.split_once(char::is_whitespace) {
        if SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s)) {
            return rest.trim();
        }
    }
    value
}

fn looks_random(value: &str) -> bool {
    if value.chars().count() < MIN_VALUE_LEN || REFERENCE.is_match(value) {
        return false;
    }
    let lower = value.to_lowercase();
    !FAKE_MARKERS.iter().any(|m| lower.contains(m)) && entropy(value) >= MIN_VALUE_ENTROPY
}

#[cfg(test)]
pub(crate) mod should {
    use super::*;
    use serde_json::json;

    /// `n` characters of `alphabet`, all different while `n <= alphabet.len()`, in an
    /// order that looks random enough for the entropy checks (stride 7 is coprime with
    /// every alphabet used here).
    fn mix(alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|i| a[(i * 7 + i / a.len()) % a.len()] as char)
            .collect()
    }

    const ALNUM: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const WORD: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-";
    const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const LOWER: &str = "0123456789abcdefghijklmnopqrstuvwxyz";

    fn alnum(n: usize) -> String {
        mix(ALNUM, n)
    }
    fn word(n: usize) -> String {
        mix(WORD, n)
    }

    /// The pieces of a PEM header, joined at run time so this file does not hold one.
    fn pem(kind: &str, body: &str) -> String {
        let dashes = "-".repeat(5);
        format!(
            "{dashes}BEGIN {kind}PRIVATE KEY{dashes}\n{body}\n{dashes}END {kind}PRIVATE KEY{dashes}\n"
        )
    }

    fn base64_lines() -> String {
        let b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        format!("MII{}\n{}\n{}==", mix(b64, 61), mix(b64, 64), mix(b64, 30))
    }

    fn jwt() -> String {
        let header = ["ey", "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"].concat();
        let payload = ["ey", "JzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9"].concat();
        format!("{header}.{payload}.{}", word(43))
    }

    /// A positive sample of every token rule, by rule id.
    pub(crate) fn samples() -> Vec<(&'static str, String)> {
        vec![
            ("github-pat", format!("ghp_{}", alnum(36))),
            ("github-oauth", format!("gho_{}", alnum(36))),
            ("github-app-token", format!("ghu_{}", alnum(36))),
            ("github-app-token", format!("ghs_{}", alnum(36))),
            ("github-refresh-token", format!("ghr_{}", alnum(36))),
            (
                "github-fine-grained-pat",
                format!("github_pat_{}_{}", alnum(22), alnum(59)),
            ),
            ("gitlab-pat", format!("glpat-{}", word(20))),
            ("aws-access-key-id", format!("AKIA{}", mix(UPPER, 16))),
            ("aws-access-key-id", format!("ASIA{}", mix(UPPER, 16))),
            (
                "slack-token",
                format!("xoxb-{}-{}-{}", "1234567890", "2345678901", alnum(24)),
            ),
            (
                "slack-token",
                format!(
                    "xoxp-{}-{}-{}-{}",
                    "1234567890",
                    "2345678901",
                    "3456789012",
                    mix("0123456789abcdef", 32)
                ),
            ),
            (
                "slack-token",
                format!("xapp-1-A{}-{}-{}", mix(UPPER, 10), "4567890123", alnum(40)),
            ),
            (
                "slack-webhook-url",
                format!(
                    "https://hooks.slack.com/services/T{}/B{}/{}",
                    mix(UPPER, 8),
                    mix(UPPER, 10),
                    alnum(24)
                ),
            ),
            ("stripe-access-token", format!("sk_live_{}", alnum(24))),
            ("stripe-access-token", format!("rk_test_{}", alnum(24))),
            ("stripe-access-token", format!("sk_prod_{}", alnum(99))),
            ("gcp-api-key", format!("AIza{}", word(35))),
            ("openai-api-key", format!("sk-proj-{}", word(120))),
            (
                "openai-api-key",
                format!("sk-{}T3BlbkFJ{}", alnum(20), alnum(20)),
            ),
            ("anthropic-api-key", format!("sk-ant-api03-{}AA", word(93))),
            (
                "anthropic-admin-api-key",
                format!("sk-ant-admin01-{}AA", word(93)),
            ),
            ("jwt", jwt()),
            ("private-key", pem("", &base64_lines())),
            ("private-key", pem("RSA ", &base64_lines())),
            ("private-key", pem("OPENSSH ", &base64_lines())),
            ("private-key", pem("EC ", &base64_lines())),
            (
                "private-key",
                pem(
                    "ENCRYPTED ",
                    &format!(
                        "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{}\n\n{}",
                        mix("0123456789ABCDEF", 16),
                        base64_lines()
                    ),
                ),
            ),
            (
                "private-key",
                format!(
                    "{d}BEGIN PGP PRIVATE KEY BLOCK{d}\n\n{}\n",
                    base64_lines(),
                    d = "-".repeat(5)
                ),
            ),
            ("npm-access-token", format!("npm_{}", mix(LOWER, 36))),
            (
                "npm-access-token",
                format!("NPM_{}", mix(LOWER, 36).to_uppercase()),
            ),
            (
                "huggingface-access-token",
                format!("hf_{}", mix(LETTERS, 34)),
            ),
            (
                "huggingface-organization-api-token",
                format!("api_org_{}", mix(LETTERS, 34)),
            ),
            (
                "sendgrid-api-token",
                format!("SG.{}.{}", word(22), word(43)),
            ),
            ("vault-service-token", format!("hvs.{}", word(95))),
            ("vault-batch-token", format!("hvb.{}", word(150))),
            (
                "pypi-upload-token",
                format!("pypi-AgEIcHlwaS5vcmc{}", word(60)),
            ),
        ]
    }

    /// A near miss of every token rule, by rule id, with why it is not a secret.
    fn near_misses() -> Vec<(&'static str, String, &'static str)> {
        vec![
            ("github-pat", format!("ghp_{}", alnum(35)), "too short"),
            ("github-pat", format!("GHP_{}", alnum(36)), "prefix in the wrong case"),
            ("github-pat", format!("my_ghp_{}", alnum(36)), "inside an identifier"),
            ("github-pat", format!("ghp_{}", "x".repeat(36)), "low entropy"),
            ("github-oauth", format!("xgho_{}", alnum(36)), "inside an identifier"),
            ("github-app-token", format!("ghx_{}", alnum(36)), "wrong prefix"),
            ("github-refresh-token", format!("ghr_{}", alnum(30)), "too short"),
            (
                "github-fine-grained-pat",
                format!("github_pat_{}", alnum(81)),
                "too short",
            ),
            ("gitlab-pat", format!("glpat-{}", word(19)), "too short"),
            ("gitlab-pat", format!("GLPAT-{}", word(20)), "prefix in the wrong case"),
            ("aws-access-key-id", "AKIAIOSFODNN7EXAMPLE".to_owned(), "AWS's documented example"),
            ("aws-access-key-id", format!("AKIA{}", mix(UPPER, 15)), "too short"),
            ("aws-access-key-id", format!("AKIA{}", mix(UPPER, 17)), "too long"),
            ("aws-access-key-id", format!("XAKIA{}", mix(UPPER, 16)), "inside an identifier"),
            ("aws-access-key-id", format!("akia{}", mix(UPPER, 16)), "prefix in the wrong case"),
            ("slack-token", "xoxb-123-abc".to_owned(), "too short"),
            ("slack-token", format!("xoxz-1234567890-{}", alnum(24)), "wrong prefix"),
            (
                "slack-webhook-url",
                format!(
                    "https://hooks.slack.com/services/T{}/B{}/{}",
                    "0".repeat(8),
                    "0".repeat(8),
                    "X".repeat(24)
                ),
                "Slack's documented example (low entropy)",
            ),
            (
                "slack-webhook-url",
                "https://hooks.slack.com/services/T0/B0/abc".to_owned(),
                "too short",
            ),
            ("stripe-access-token", format!("pk_live_{}", alnum(24)), "a publishable key"),
            ("stripe-access-token", format!("sk_live_{}", alnum(9)), "too short"),
            ("stripe-access-token", format!("ask_live_{}", alnum(24)), "inside an identifier"),
            ("stripe-access-token", format!("sk_live_{}", alnum(100)), "too long"),
            ("gcp-api-key", format!("AIza{}", word(34)), "too short"),
            ("gcp-api-key", format!("aiza{}", word(35)), "prefix in the wrong case"),
            ("openai-api-key", format!("sk-proj-{}", word(20)), "too short"),
            ("openai-api-key", format!("sk-{}", alnum(48)), "no T3BlbkFJ marker"),
            ("openai-api-key", format!("task-proj-{}", word(60)), "inside a word"),
            (
                "anthropic-api-key",
                format!("sk-ant-api03-{}AB", word(93)),
                "wrong checksum suffix",
            ),
            ("anthropic-api-key", format!("sk-ant-api03-{}AA", word(92)), "too short"),
            (
                "anthropic-admin-api-key",
                format!("sk-ant-admin02-{}AA", word(93)),
                "wrong version",
            ),
            (
                "jwt",
                format!("{}.{}.abc", ["ey", "JhbGciOiJIUzI1NiJ9"].concat(), ["ey", "Jz"].concat()),
                "payload and signature too short",
            ),
            ("jwt", ["ey", "JwYWdlIjoyLCJzaXplIjo1MH0="].concat(), "a base64 cursor, one part"),
            (
                "private-key",
                pem("", "..."),
                "no key material (a documentation stub)",
            ),
            (
                "private-key",
                format!("{d}BEGIN PUBLIC KEY{d}\n{}\n", base64_lines(), d = "-".repeat(5)),
                "a public key",
            ),
            (
                "private-key",
                format!(
                    "{d}BEGIN PRIVATE KEY{d} is the first line of a PKCS 8 file and the base64 body follows it",
                    d = "-".repeat(5)
                ),
                "prose about a key",
            ),
            ("npm-access-token", format!("npm_{}", mix(LOWER, 35)), "too short"),
            ("npm-access-token", format!("xnpm_{}", mix(LOWER, 36)), "inside an identifier"),
            ("huggingface-access-token", format!("hf_{}", mix(LETTERS, 33)), "too short"),
            (
                "huggingface-access-token",
                format!("hf_{}1", mix(LETTERS, 33)),
                "a digit where letters belong",
            ),
            (
                "huggingface-organization-api-token",
                format!("my_api_org_{}", mix(LETTERS, 34)),
                "inside an identifier",
            ),
            ("sendgrid-api-token", format!("SG.{}.{}", word(21), word(43)), "wrong shape"),
            ("sendgrid-api-token", format!("sg.{}.{}", word(22), word(43)), "prefix in the wrong case"),
            ("vault-service-token", format!("hvs.{}", word(89)), "too short"),
            ("vault-batch-token", format!("hvb.{}", word(137)), "too short"),
            ("pypi-upload-token", format!("pypi-AgEIcHlwaS5vcmc{}", word(49)), "too short"),
            ("pypi-upload-token", format!("pypi-AgEIcHlwaS5vcmX{}", word(60)), "wrong prefix"),
        ]
    }

    fn token_rule_ids() -> Vec<&'static str> {
        RULES.iter().map(|r| r.id).collect()
    }

    #[test]
    fn compile_every_rule() {
        for rule in RULES {
            if let Err(e) = compile(rule) {
                panic!("rule {} does not compile: {e}", rule.id);
            }
            assert!(!rule.keywords.is_empty(), "rule {} has no keyword", rule.id);
        }
        // The prefilter finds every keyword, in any ASCII case, anywhere in a string.
        for (r, rule) in RULES.iter().enumerate() {
            for keyword in rule.keywords {
                for text in [
                    keyword.to_string(),
                    format!("x {} y", keyword.to_ascii_uppercase()),
                ] {
                    let present = rules_with_keywords(&text).expect("a keyword is found");
                    assert!(present[r], "rule {}: {text:?}", rule.id);
                }
            }
        }
        assert_eq!(rules_with_keywords("nothing to see, they obey."), None);
    }

    #[test]
    fn have_unique_kebab_case_ids_ending_with_the_key_name_rule() {
        let ids = rule_ids();
        assert_eq!(ids.last(), Some(&SENSITIVE_KEY));
        assert_eq!(ids.len(), RULES.len() + 1);
        for (i, id) in ids.iter().enumerate() {
            assert!(!ids[..i].contains(id), "{id} twice");
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{id} is not kebab-case"
            );
        }
    }

    #[test]
    fn list_every_rule_in_the_module_docs() {
        let source = include_str!("secrets.rs");
        for id in rule_ids() {
            assert!(
                source.contains(&format!("//! | `{id}` |")),
                "the module docs' table lacks {id}"
            );
        }
    }

    #[test]
    fn flag_a_sample_of_every_token_rule() {
        let samples = samples();
        for id in token_rule_ids() {
            assert!(samples.iter().any(|(r, _)| *r == id), "no sample of {id}");
        }
        for (id, sample) in &samples {
            assert_eq!(scan_str(sample).map(|r| r.0), Some(*id), "sample of {id}");
            // Inside prose, in quotes, after `=`, before punctuation: still found.
            for text in [
                format!("the key is {sample}, keep it safe"),
                format!("export TOKEN=\"{sample}\";"),
                format!("({sample})"),
            ] {
                assert_eq!(scan_str(&text).map(|r| r.0), Some(*id), "{id} in context");
            }
        }
    }

    #[test]
    fn pass_a_near_miss_of_every_token_rule() {
        let misses = near_misses();
        for id in token_rule_ids() {
            assert!(
                misses.iter().any(|(r, _, _)| *r == id),
                "no near miss of {id}"
            );
        }
        for (id, text, why) in &misses {
            assert_eq!(scan_str(text), None, "near miss of {id} ({why})");
        }
    }

    /// No 12-character piece of `secret` is in `text`.
    pub(crate) fn assert_no_piece_of(secret: &str, text: &str, what: &str) {
        let chars: Vec<char> = secret.chars().collect();
        for piece in chars.windows(12) {
            let piece: String = piece.iter().collect();
            assert!(!text.contains(&piece), "{what}: {piece:?} shows in {text}");
        }
    }

    #[test]
    fn mask_a_sample_of_every_token_rule_in_text_keeping_its_first_characters() {
        let samples = samples();
        for id in token_rule_ids() {
            assert!(samples.iter().any(|(r, _)| *r == id), "no sample of {id}");
        }
        for (id, sample) in &samples {
            let text = format!("before {sample} after");
            let masked = mask_text(&text);
            // A Slack webhook's secret is its path; the host is public.
            let secret = sample.split("/services/").last().unwrap();
            assert_no_piece_of(secret, &masked, id);
            assert!(masked.starts_with("before "), "{id}: {masked}");
            // A private key without its END line is masked to the end of the text.
            let ends = *id != "private-key" || sample.contains("-----END");
            assert_eq!(masked.ends_with(" after"), ends, "{id}: {masked}");
            assert!(
                masked.contains(&format!("…[masked: {id}]")),
                "{id}: {masked}"
            );
            let before = masked.split('…').next().unwrap();
            let shown = before.rsplit(['/', ' ']).next().unwrap();
            assert!(shown.chars().count() <= SHOWN, "{id}: {masked}");
            // Masked once, it stays as it is.
            assert_eq!(mask_text(&masked), masked, "{id}");
        }
        // Nothing to mask: the text itself.
        assert!(matches!(
            mask_text("nothing here"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(mask_text("<TOKEN>"), "<TOKEN>");
        assert_eq!(mask_text("AKIAIOSFODNN7EXAMPLE"), "AKIAIOSFODNN7EXAMPLE");
    }

    #[test]
    fn mask_in_values_what_the_scan_refuses_keys_and_credential_names_included() {
        let pat = format!("ghp_{}", alnum(36));
        let random = mix(LOWER, 16);
        let value = json!({
            "text": format!("token {pat}!"),
            pat.clone(): [pat.clone()],
            "headers": {"Authorization": format!("Bearer {random}"), "x-api-key": random, "cursor": random},
            "password": "changeme",
            "n": 1,
        });
        assert!(!scan(&value).is_empty());
        let masked = mask_value(&value);
        assert_eq!(scan(&masked), vec![], "{masked}");
        let text = masked.to_string();
        assert_no_piece_of(&pat, &text, "github-pat");
        assert_no_piece_of(
            &random,
            &text.replace(&format!("\"cursor\":\"{random}\""), ""),
            "sensitive-key",
        );
        assert_eq!(masked["text"], "token ghp_…[masked: github-pat]!");
        assert_eq!(
            masked["headers"]["Authorization"],
            "Bearer …[masked: sensitive-key]"
        );
        assert_eq!(masked["headers"]["x-api-key"], "…[masked: sensitive-key]");
        // What the scan lets through stays: not a credential's key, a fake value.
        assert_eq!(masked["headers"]["cursor"], random);
        assert_eq!(masked["password"], "changeme");
        assert_eq!(masked["n"], 1);
        assert_eq!(
            masked["ghp_…[masked: github-pat]"][0],
            "ghp_…[masked: github-pat]"
        );
        // A private key's whole body, through its END line.
        let key = pem("RSA ", &base64_lines());
        let text = format!("key: {key}done");
        assert_eq!(mask_text(&text), "key: ----…[masked: private-key]\ndone");
    }

    #[test]
    fn report_the_rule_that_matches_first_in_a_string() {
        let text = format!("a={} b=ghp_{}", jwt(), alnum(36));
        assert_eq!(scan_str(&text).map(|r| r.0), Some("jwt"));
        let text = format!("b=ghp_{} a={}", alnum(36), jwt());
        assert_eq!(scan_str(&text).map(|r| r.0), Some("github-pat"));
    }

    #[test]
    fn find_a_token_after_a_rejected_match_of_the_same_rule() {
        let text = format!("ghp_{} then ghp_{}", "x".repeat(36), alnum(36));
        assert_eq!(scan_str(&text).map(|r| r.0), Some("github-pat"));
    }

    #[test]
    fn describe_each_rule_in_a_few_words() {
        assert_eq!(
            scan_str(&format!("ghp_{}", alnum(36))),
            Some(("github-pat", "GitHub personal access token"))
        );
        for rule in RULES {
            assert!(!rule.description.is_empty() && rule.description.len() < 60);
        }
    }

    #[test]
    fn never_flag_a_placeholder() {
        for text in [
            "<REQUEST_ID>",
            "<REQUEST_ID:2>",
            "<TIMESTAMP>",
            "<REDACTED>",
            "<SECRET>",
            "<PROGRESS_TOKEN:1>",
        ] {
            assert_eq!(scan_str(text), None, "{text}");
            assert!(is_placeholder(text), "{text}");
        }
        // Entirely a placeholder, even one that spells a token's shape.
        let aws_shaped = format!("<AKIA{}>", mix(UPPER, 16));
        assert!(is_placeholder(&aws_shaped));
        assert_eq!(scan_str(&aws_shaped), None);
        let value = json!({"token": "<TOKEN>", "password": "<REDACTED>", "k": aws_shaped});
        assert_eq!(scan(&value), vec![]);
        assert!(!is_placeholder("<b>bold</b>") && !is_placeholder("<>"));
    }

    /// The one placeholder grammar, which the scanner shares with the normalizer. The
    /// scanner's own grammar used to take more (`<1>`, `<_X>`, `<A:b:c>`,
    /// `<20260516:12:00>`): more than the harness ever writes or documents, and every extra
    /// form switched the guard off for a value.
    #[test]
    fn take_only_what_the_normalizer_takes_for_a_placeholder() {
        let table = [
            ("<TIMESTAMP>", true),
            ("<REQUEST_ID:2>", true),
            ("<SERVER_REQUEST_ID:12>", true),
            ("<A1_B>", true),
            ("<X:a.b-c_D>", true),
            ("<1>", false),
            ("<_X>", false),
            ("<20260516:12:00>", false),
            ("<A:b:c>", false),
            ("<A:>", false),
            ("<a>", false),
            ("<>", false),
            ("<A b>", false),
            ("<A:b c>", false),
            ("<A:é>", false),
            ("<TMP>/x", false),
            ("x<TMP>", false),
            ("<b>bold</b>", false),
        ];
        for (text, placeholder) in table {
            assert_eq!(is_placeholder(text), placeholder, "{text}");
            assert_eq!(
                crate::normalize::placeholder::is_placeholder(text),
                placeholder,
                "{text}"
            );
        }
        // A value under a credential key that only looks like it holds a placeholder.
        let value = "x7Qp2Lm9Zr4<1>Kd8";
        assert_eq!(scan(&json!({"password": value}))[0].rule, SENSITIVE_KEY);
    }

    #[test]
    fn give_paths_in_selector_form_for_nested_objects_arrays_and_odd_keys() {
        let pat = format!("ghp_{}", alnum(36));
        let value = json!({
            "result": {"content": [{"type": "text", "text": "ok"}, {"type": "text", "text": format!("token: {pat}")}]},
            "params": {"headers": {"x-api-key": format!("sk_live_{}", alnum(24)), "a.b c": [null, pat], "quo\"te": pat}},
            "": pat,
            "file/path_x-y": pat,
        });
        let paths: Vec<(String, &str)> =
            scan(&value).into_iter().map(|f| (f.path, f.rule)).collect();
        assert_eq!(
            paths,
            vec![
                (r#".[""]"#.to_owned(), "github-pat"),
                (".file/path_x-y".to_owned(), "github-pat"),
                (r#".params.headers["a.b c"][1]"#.to_owned(), "github-pat"),
                (r#".params.headers["quo\"te"]"#.to_owned(), "github-pat"),
                (
                    ".params.headers.x-api-key".to_owned(),
                    "stripe-access-token"
                ),
                (".result.content[1].text".to_owned(), "github-pat"),
            ]
        );
        // Each path is a selector for exactly the string that holds the secret.
        for (path, _) in paths {
            let mut visited = Vec::new();
            let selector = crate::normalize::selector::Selector::parse(&path).expect("a selector");
            selector.apply(&mut value.clone(), &mut |v, at| {
                visited.push((at.to_owned(), v.as_str().and_then(scan_str).is_some()));
            });
            assert_eq!(visited, [(path.clone(), true)]);
        }
    }

    #[test]
    fn give_the_root_path_as_a_dot_and_root_array_items_by_index() {
        let pat = format!("ghp_{}", alnum(36));
        assert_eq!(scan(&json!(pat))[0].path, ".");
        assert_eq!(scan(&json!(["x", pat]))[0].path, ".[1]");
        assert_eq!(scan(&json!(null)), vec![]);
    }

    #[test]
    fn keep_the_secret_out_of_findings_and_their_debug_output() {
        let samples = samples();
        let value = Value::Array(
            samples
                .iter()
                .map(|(_, s)| json!({"password": s, s.clone(): s}))
                .collect(),
        );
        let findings = scan(&value);
        assert!(findings.len() >= 2 * samples.len());
        let debug = format!("{findings:?}");
        for (id, sample) in &samples {
            // No 12-character piece of the sample shows.
            let chars: Vec<char> = sample.chars().collect();
            for piece in chars.windows(12) {
                let piece: String = piece.iter().collect();
                assert!(!debug.contains(&piece), "{id}: {piece} leaked");
            }
        }
        // A secret in a key is redacted in the path of the key and below it.
        let pat = format!("ghp_{}", alnum(36));
        let findings = scan(&json!({"map": {pat.clone(): {"note": pat}}}));
        assert_eq!(
            findings,
            vec![
                SecretFinding {
                    path: r#".map["<REDACTED>"]"#.into(),
                    rule: "github-pat",
                    description: "GitHub personal access token",
                },
                SecretFinding {
                    path: r#".map["<REDACTED>"].note"#.into(),
                    rule: "github-pat",
                    description: "GitHub personal access token",
                },
            ]
        );
    }

    #[test]
    fn report_in_a_stable_order() {
        let pat = format!("ghp_{}", alnum(36));
        let jwt = jwt();
        let value = json!({
            "z": [pat, {"b": jwt, "a": pat}],
            "a": format!("{jwt} and {pat} and {jwt}"),
            "m": {"password": alnum(16)},
        });
        let got: Vec<(String, &str)> = scan(&value).into_iter().map(|f| (f.path, f.rule)).collect();
        let want: Vec<(String, &str)> = vec![
            (".a".into(), "jwt"),
            (".a".into(), "github-pat"),
            (".m.password".into(), "sensitive-key"),
            (".z[0]".into(), "github-pat"),
            (".z[1].a".into(), "github-pat"),
            (".z[1].b".into(), "jwt"),
        ];
        assert_eq!(got, want);
        assert_eq!(scan(&value), scan(&value.clone()));
    }

    #[test]
    fn flag_random_values_of_credential_named_keys() {
        let random = alnum(16);
        for key in [
            "password",
            "Password",
            "dbPassword",
            "passwd",
            "pwd",
            "secret",
            "client_secret",
            "apiKey",
            "x-api-key",
            "X-API-KEY",
            "access_token",
            "refresh_token",
            "id_token",
            "authToken",
            "X-Auth-Token",
            "bearer_token",
            "token",
            "session_token",
            "AWS_SECRET_ACCESS_KEY",
            "private_key",
            "secretKey",
            "passphrase",
            "credentials",
            "Authorization",
            "Proxy-Authorization",
        ] {
            let found = scan(&json!({"params": {key: random}}));
            assert_eq!(found.len(), 1, "{key}");
            assert_eq!(found[0].rule, SENSITIVE_KEY, "{key}");
            assert_eq!(found[0].description, SENSITIVE_KEY_DESCRIPTION);
        }
        let found = scan(&json!({"headers": {"Authorization": format!("Bearer {random}")}}));
        assert_eq!(found[0].path, ".headers.Authorization");
        let found = scan(
            &json!({"headers": {"Authorization": format!("Basic {}", "dXNlcjpwYXNzd29yZA==")}}),
        );
        assert_eq!(found.len(), 1);
        let found = scan(&json!({"headers": {"Cookie": format!("theme=dark; session={random}")}}));
        assert_eq!(found.len(), 1);
        let found =
            scan(&json!({"headers": {"Set-Cookie": format!("sid={random}; Path=/; HttpOnly")}}));
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn not_flag_near_miss_key_names() {
        let random = alnum(16);
        for key in [
            "progressToken",
            "pageToken",
            "nextPageToken",
            "nextCursor",
            "cursor",
            "maxTokens",
            "tokenCount",
            "token_type",
            "tokenEndpoint",
            "authorization_endpoint",
            "secretName",
            "secrets",
            "publicKey",
            "idempotencyKey",
            "key",
            "csrfToken",
            "sessionId",
            "Mcp-Session-Id",
            "passwordPolicy",
            "client_id",
        ] {
            assert_eq!(scan(&json!({"params": {key: random}})), vec![], "{key}");
        }
    }

    #[test]
    fn not_flag_placeholders_references_fakes_or_low_entropy_values_under_credential_keys() {
        for value in [
            "<TOKEN>",
            "Bearer <TOKEN>",
            "<REDACTED>",
            "prefix-<SECRET:1>-suffix",
            "hunter2hunter2",
            "changeme",
            "password",
            "test1234",
            "s3cr3tP4",
            "abc",
            "Bearer abc",
            "Bearer abcdefg",
            "${GITHUB_TOKEN}",
            "$API_KEY",
            "%API_KEY%",
            "{{ secrets.api_key }}",
            "your-api-key-here",
            "YOUR_API_KEY",
            "dummy-token-for-tests",
            "fake-password-42",
            "sk-xxxxxxxxxxxxxxxxxxxx",
            "********************",
            "[REDACTED]",
            "",
        ] {
            for key in ["password", "Authorization", "api_key", "token"] {
                assert_eq!(scan(&json!({key: value})), vec![], "{key}: {value}");
            }
        }
        let cookies = json!({"Cookie": "theme=dark; lang=en", "Set-Cookie": "theme=dark; Expires=Wed, 21 Oct 2026 07:28:00 GMT"});
        assert_eq!(scan(&cookies), vec![]);
    }

    #[test]
    fn flag_only_string_values_under_credential_keys_but_look_inside_the_rest() {
        let pat = format!("ghp_{}", alnum(36));
        let value = json!({
            "password": null,
            "token": 1_234_567_890_123_456_u64,
            "secret": {"name": alnum(16), "value": pat},
            "apiKey": ["a", alnum(16)],
        });
        let got: Vec<(String, &str)> = scan(&value).into_iter().map(|f| (f.path, f.rule)).collect();
        assert_eq!(got, vec![(".secret.value".into(), "github-pat")]);
    }

    #[test]
    fn report_a_token_under_a_credential_key_once_by_its_token_rule() {
        let value = json!({"Authorization": format!("Bearer ghp_{}", alnum(36))});
        let found = scan(&value);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "github-pat");
    }

    #[test]
    fn measure_entropy_in_bits_per_character() {
        assert!(entropy("").abs() < 1e-9);
        assert!(entropy("aaaa").abs() < 1e-9);
        assert!((entropy("abcdefgh") - 3.0).abs() < 1e-9);
        assert!((entropy("aabb") - 1.0).abs() < 1e-9);
        assert!(entropy("hunter2hunter2") < MIN_VALUE_ENTROPY);
    }

    #[test]
    fn scan_a_large_value_without_secrets() {
        // An image-sized base64 string and many ordinary strings: the prefilter's case.
        let b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let big = mix(b64, 1 << 20);
        let text: Vec<Value> = (0..5000)
            .map(|i| json!({"type": "text", "text": format!("line {i}: nothing to see, they obey.")}))
            .collect();
        let value = json!({"result": {"content": text, "image": {"data": big}}});
        // How fast is for the benchmarks (docs/PERFORMANCE.md); here: nothing is found.
        assert_eq!(scan(&value), vec![]);
    }
}
