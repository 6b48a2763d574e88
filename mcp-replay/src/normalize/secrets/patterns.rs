//! What a secret looks like: the token rules (gitleaks-class patterns), the credential key
//! names and values of the key-name rule, and what marks a value as fake. Data only: the
//! scanner (`scan.rs`) runs it.

use once_cell::sync::Lazy;
use regex::Regex;

/// A token rule. `pattern` is compiled in ASCII mode (`(?-u)` is prepended): `\w`, `\b`,
/// `\s` and `(?i)` are ASCII-only, which keeps the large counted repetitions small.
pub(super) struct Rule {
    pub(super) id: &'static str,
    pub(super) description: &'static str,
    /// Literals (matched case-insensitively) one of which every match contains: the
    /// prefilter runs the pattern only when one is present.
    pub(super) keywords: &'static [&'static str],
    /// Group 1, when present, is the token whose entropy is measured.
    pub(super) pattern: &'static str,
    /// Minimum Shannon entropy of the token in bits per character; 0 for none.
    pub(super) min_entropy: f64,
    /// A token containing one of these is a documented example, not a secret.
    pub(super) examples: &'static [&'static str],
}

/// The token rules, in the order of the module docs' table. A tail
/// `(?:$|(?u:[^…]))` means "not followed by another character of the token"; it is in
/// Unicode mode so the negated class cannot match half of a UTF-8 sequence.
pub(super) const RULES: &[Rule] = &[
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

/// The id of the key-name rule.
pub(super) const SENSITIVE_KEY: &str = "sensitive-key";
pub(super) const SENSITIVE_KEY_DESCRIPTION: &str = "credential under a credential's key name";

/// Key names (normalized: lowercase, no `-`, `_`, `.`, spaces) that name a credential.
pub(super) const SENSITIVE_NAMES: &[&str] = &[
    "token",
    "idtoken",
    "pwd",
    "cookie",
    "setcookie",
    "credential",
    "credentials",
];

/// Normalized key endings that name a credential (the ending alone does too).
pub(super) const SENSITIVE_SUFFIXES: &[&str] = &[
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
pub(super) const SCHEMES: &[&str] = &[
    "bearer",
    "basic",
    "token",
    "bot",
    "digest",
    "negotiate",
    "apikey",
];

/// Lowercase words that mark a value as made up.
pub(super) const FAKE_MARKERS: &[&str] = &[
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
pub(super) const MIN_VALUE_LEN: usize = 8;
pub(super) const MIN_VALUE_ENTROPY: f64 = 3.0;

/// An environment reference (`${GITHUB_TOKEN}`, `$TOKEN`, `%TOKEN%`, `{{token}}`).
pub(super) static REFERENCE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\{\{[^}]*\}\})$")
        .expect("valid reference pattern")
});

/// The end of a PEM, OpenSSH or PGP private key.
pub(super) static END_OF_KEY: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"-----END[ A-Z0-9_-]{0,100}-----").expect("valid end-of-key pattern"));

/// Ids of all rules (the token rules in the order of the table, then `sensitive-key`), for
/// docs and for validating allow-list entries.
pub fn rule_ids() -> &'static [&'static str] {
    static IDS: Lazy<Vec<&'static str>> =
        Lazy::new(|| RULES.iter().map(|r| r.id).chain([SENSITIVE_KEY]).collect());
    &IDS
}
