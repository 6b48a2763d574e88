//! A positive sample and a near miss of every rule, masking, paths and order.

use super::mask::{mask_text, mask_value, SHOWN};
use super::patterns::{MIN_VALUE_ENTROPY, RULES, SENSITIVE_KEY, SENSITIVE_KEY_DESCRIPTION};
use super::scan::{compile, entropy, rules_with_keywords, scan_str, SecretFinding};
use super::*;
use crate::normalize::placeholder::is_placeholder;
use serde_json::json;
use serde_json::Value;

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

/// Makes a text when a test asks for it, from pieces, so that this file holds no
/// sample whole.
type Make = fn() -> String;

/// A positive sample of every token rule, by rule id.
const SAMPLES: &[(&str, Make)] = &[
    ("github-pat", || format!("ghp_{}", alnum(36))),
    ("github-oauth", || format!("gho_{}", alnum(36))),
    ("github-app-token", || format!("ghu_{}", alnum(36))),
    ("github-app-token", || format!("ghs_{}", alnum(36))),
    ("github-refresh-token", || format!("ghr_{}", alnum(36))),
    ("github-fine-grained-pat", || {
        format!("github_pat_{}_{}", alnum(22), alnum(59))
    }),
    ("gitlab-pat", || format!("glpat-{}", word(20))),
    ("aws-access-key-id", || format!("AKIA{}", mix(UPPER, 16))),
    ("aws-access-key-id", || format!("ASIA{}", mix(UPPER, 16))),
    ("slack-token", || {
        format!("xoxb-{}-{}-{}", "1234567890", "2345678901", alnum(24))
    }),
    ("slack-token", || {
        format!(
            "xoxp-{}-{}-{}-{}",
            "1234567890",
            "2345678901",
            "3456789012",
            mix("0123456789abcdef", 32)
        )
    }),
    ("slack-token", || {
        format!("xapp-1-A{}-{}-{}", mix(UPPER, 10), "4567890123", alnum(40))
    }),
    ("slack-webhook-url", || {
        format!(
            "https://hooks.slack.com/services/T{}/B{}/{}",
            mix(UPPER, 8),
            mix(UPPER, 10),
            alnum(24)
        )
    }),
    ("stripe-access-token", || format!("sk_live_{}", alnum(24))),
    ("stripe-access-token", || format!("rk_test_{}", alnum(24))),
    ("stripe-access-token", || format!("sk_prod_{}", alnum(99))),
    ("gcp-api-key", || format!("AIza{}", word(35))),
    ("openai-api-key", || format!("sk-proj-{}", word(120))),
    ("openai-api-key", || {
        format!("sk-{}T3BlbkFJ{}", alnum(20), alnum(20))
    }),
    ("anthropic-api-key", || {
        format!("sk-ant-api03-{}AA", word(93))
    }),
    ("anthropic-admin-api-key", || {
        format!("sk-ant-admin01-{}AA", word(93))
    }),
    ("jwt", || jwt()),
    ("private-key", || pem("", &base64_lines())),
    ("private-key", || pem("RSA ", &base64_lines())),
    ("private-key", || pem("OPENSSH ", &base64_lines())),
    ("private-key", || pem("EC ", &base64_lines())),
    ("private-key", || {
        pem(
            "ENCRYPTED ",
            &format!(
                "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{}\n\n{}",
                mix("0123456789ABCDEF", 16),
                base64_lines()
            ),
        )
    }),
    ("private-key", || {
        format!(
            "{d}BEGIN PGP PRIVATE KEY BLOCK{d}\n\n{}\n",
            base64_lines(),
            d = "-".repeat(5)
        )
    }),
    ("npm-access-token", || format!("npm_{}", mix(LOWER, 36))),
    ("npm-access-token", || {
        format!("NPM_{}", mix(LOWER, 36).to_uppercase())
    }),
    ("huggingface-access-token", || {
        format!("hf_{}", mix(LETTERS, 34))
    }),
    ("huggingface-organization-api-token", || {
        format!("api_org_{}", mix(LETTERS, 34))
    }),
    ("sendgrid-api-token", || {
        format!("SG.{}.{}", word(22), word(43))
    }),
    ("vault-service-token", || format!("hvs.{}", word(95))),
    ("vault-batch-token", || format!("hvb.{}", word(150))),
    ("pypi-upload-token", || {
        format!("pypi-AgEIcHlwaS5vcmc{}", word(60))
    }),
];

/// [`SAMPLES`], made.
pub(crate) fn samples() -> Vec<(&'static str, String)> {
    SAMPLES.iter().map(|(id, make)| (*id, make())).collect()
}

/// A near miss of every token rule, by rule id, with why it is not a secret.
const NEAR_MISSES: &[(&str, Make, &str)] = &[
    ("github-pat", || format!("ghp_{}", alnum(35)), "too short"),
    (
        "github-pat",
        || format!("GHP_{}", alnum(36)),
        "prefix in the wrong case",
    ),
    (
        "github-pat",
        || format!("my_ghp_{}", alnum(36)),
        "inside an identifier",
    ),
    (
        "github-pat",
        || format!("ghp_{}", "x".repeat(36)),
        "low entropy",
    ),
    (
        "github-oauth",
        || format!("xgho_{}", alnum(36)),
        "inside an identifier",
    ),
    (
        "github-app-token",
        || format!("ghx_{}", alnum(36)),
        "wrong prefix",
    ),
    (
        "github-refresh-token",
        || format!("ghr_{}", alnum(30)),
        "too short",
    ),
    (
        "github-fine-grained-pat",
        || format!("github_pat_{}", alnum(81)),
        "too short",
    ),
    ("gitlab-pat", || format!("glpat-{}", word(19)), "too short"),
    (
        "gitlab-pat",
        || format!("GLPAT-{}", word(20)),
        "prefix in the wrong case",
    ),
    (
        "aws-access-key-id",
        || "AKIAIOSFODNN7EXAMPLE".to_owned(),
        "AWS's documented example",
    ),
    (
        "aws-access-key-id",
        || format!("AKIA{}", mix(UPPER, 15)),
        "too short",
    ),
    (
        "aws-access-key-id",
        || format!("AKIA{}", mix(UPPER, 17)),
        "too long",
    ),
    (
        "aws-access-key-id",
        || format!("XAKIA{}", mix(UPPER, 16)),
        "inside an identifier",
    ),
    (
        "aws-access-key-id",
        || format!("akia{}", mix(UPPER, 16)),
        "prefix in the wrong case",
    ),
    ("slack-token", || "xoxb-123-abc".to_owned(), "too short"),
    (
        "slack-token",
        || format!("xoxz-1234567890-{}", alnum(24)),
        "wrong prefix",
    ),
    (
        "slack-webhook-url",
        || {
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                "0".repeat(8),
                "0".repeat(8),
                "X".repeat(24)
            )
        },
        "Slack's documented example (low entropy)",
    ),
    (
        "slack-webhook-url",
        || "https://hooks.slack.com/services/T0/B0/abc".to_owned(),
        "too short",
    ),
    (
        "stripe-access-token",
        || format!("pk_live_{}", alnum(24)),
        "a publishable key",
    ),
    (
        "stripe-access-token",
        || format!("sk_live_{}", alnum(9)),
        "too short",
    ),
    (
        "stripe-access-token",
        || format!("ask_live_{}", alnum(24)),
        "inside an identifier",
    ),
    (
        "stripe-access-token",
        || format!("sk_live_{}", alnum(100)),
        "too long",
    ),
    ("gcp-api-key", || format!("AIza{}", word(34)), "too short"),
    (
        "gcp-api-key",
        || format!("aiza{}", word(35)),
        "prefix in the wrong case",
    ),
    (
        "openai-api-key",
        || format!("sk-proj-{}", word(20)),
        "too short",
    ),
    (
        "openai-api-key",
        || format!("sk-{}", alnum(48)),
        "no T3BlbkFJ marker",
    ),
    (
        "openai-api-key",
        || format!("task-proj-{}", word(60)),
        "inside a word",
    ),
    (
        "anthropic-api-key",
        || format!("sk-ant-api03-{}AB", word(93)),
        "wrong checksum suffix",
    ),
    (
        "anthropic-api-key",
        || format!("sk-ant-api03-{}AA", word(92)),
        "too short",
    ),
    (
        "anthropic-admin-api-key",
        || format!("sk-ant-admin02-{}AA", word(93)),
        "wrong version",
    ),
    (
        "jwt",
        || {
            format!(
                "{}.{}.abc",
                ["ey", "JhbGciOiJIUzI1NiJ9"].concat(),
                ["ey", "Jz"].concat()
            )
        },
        "payload and signature too short",
    ),
    (
        "jwt",
        || ["ey", "JwYWdlIjoyLCJzaXplIjo1MH0="].concat(),
        "a base64 cursor, one part",
    ),
    (
        "private-key",
        || pem("", "..."),
        "no key material (a documentation stub)",
    ),
    (
        "private-key",
        || {
            format!(
                "{d}BEGIN PUBLIC KEY{d}\n{}\n",
                base64_lines(),
                d = "-".repeat(5)
            )
        },
        "a public key",
    ),
    (
        "private-key",
        || {
            format!(
                "{d}BEGIN PRIVATE KEY{d} is the first line of a PKCS 8 file and the base64 body follows it",
                d = "-".repeat(5)
            )
        },
        "prose about a key",
    ),
    (
        "npm-access-token",
        || format!("npm_{}", mix(LOWER, 35)),
        "too short",
    ),
    (
        "npm-access-token",
        || format!("xnpm_{}", mix(LOWER, 36)),
        "inside an identifier",
    ),
    (
        "huggingface-access-token",
        || format!("hf_{}", mix(LETTERS, 33)),
        "too short",
    ),
    (
        "huggingface-access-token",
        || format!("hf_{}1", mix(LETTERS, 33)),
        "a digit where letters belong",
    ),
    (
        "huggingface-organization-api-token",
        || format!("my_api_org_{}", mix(LETTERS, 34)),
        "inside an identifier",
    ),
    (
        "sendgrid-api-token",
        || format!("SG.{}.{}", word(21), word(43)),
        "wrong shape",
    ),
    (
        "sendgrid-api-token",
        || format!("sg.{}.{}", word(22), word(43)),
        "prefix in the wrong case",
    ),
    (
        "vault-service-token",
        || format!("hvs.{}", word(89)),
        "too short",
    ),
    (
        "vault-batch-token",
        || format!("hvb.{}", word(137)),
        "too short",
    ),
    (
        "pypi-upload-token",
        || format!("pypi-AgEIcHlwaS5vcmc{}", word(49)),
        "too short",
    ),
    (
        "pypi-upload-token",
        || format!("pypi-AgEIcHlwaS5vcmX{}", word(60)),
        "wrong prefix",
    ),
];

/// [`NEAR_MISSES`], made.
fn near_misses() -> Vec<(&'static str, String, &'static str)> {
    NEAR_MISSES
        .iter()
        .map(|(id, make, why)| (*id, make(), *why))
        .collect()
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
    let source = include_str!("mod.rs");
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
    let paths: Vec<(String, &str)> = scan(&value).into_iter().map(|f| (f.path, f.rule)).collect();
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
    let found =
        scan(&json!({"headers": {"Authorization": format!("Basic {}", "dXNlcjpwYXNzd29yZA==")}}));
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
