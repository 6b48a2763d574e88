//! A secret scanner for JSON values: fixtures are committed, so they must never hold a
//! credential.
//!
//! [`scan`](fn@scan) walks a value and reports every string that looks like a credential,
//! by JSON path and rule id, never by content: a [`SecretFinding`](scan::SecretFinding)
//! holds no part of the secret, so it is safe to print, log and put in an error. The rules
//! are data (`patterns.rs`); `scan.rs` runs them, and `mask.rs` masks what they find in
//! what a report prints.
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

mod mask;
mod patterns;
mod scan;
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use mask::{mask_text, mask_under, mask_value};
pub(crate) use patterns::rule_ids;
pub(crate) use scan::scan;
