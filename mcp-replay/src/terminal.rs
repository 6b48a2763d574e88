//! What mcp-replay prints for a person at a terminal: commands to paste (each argument
//! quoted for a POSIX shell) and whether to color. A leaf: it imports nothing of the crate.

/// `arg` as one word a POSIX shell reads back unchanged: as it is when it holds only
/// characters no shell treats specially (letters, digits, `_ - . / : = @ % + ,`), else in
/// single quotes (each `'` written `'\''`), so that nothing in it is expanded (`$VAR`,
/// `*`, `~`) or split (spaces). The commands mcp-replay prints for pasting (the re-record
/// command of a failed replay, `mcp-replay accept PATH`) quote each argument with it.
///
/// ```
/// use mcp_replay::_support::shell_quote;
/// assert_eq!(shell_quote("fixtures/echo.jsonl"), "fixtures/echo.jsonl");
/// assert_eq!(shell_quote("my fixtures/$HOME.jsonl"), "'my fixtures/$HOME.jsonl'");
/// assert_eq!(shell_quote("it's"), r"'it'\''s'");
/// assert_eq!(shell_quote(""), "''");
/// ```
pub fn shell_quote(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// `args` as one command line a POSIX shell runs as given: each [`shell_quote`]d, joined
/// by spaces.
pub fn shell_line<S: AsRef<str>>(args: impl IntoIterator<Item = S>) -> String {
    args.into_iter()
        .map(|a| shell_quote(a.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether to write reports with ANSI colors (`{:#}`), as the conventions say: never when
/// `NO_COLOR` is set (not empty); always when `CLICOLOR_FORCE` is set (not `0`); never when
/// `CLICOLOR` is `0`; else when the output is a terminal. The command passes whether its
/// stdout is one; under `cargo test` the attribute passes `false` (libtest captures the
/// output, and CI logs and editors show escape codes as noise), so a report there is in
/// color only when `CLICOLOR_FORCE` asks.
pub fn color_wanted(terminal: bool) -> bool {
    color_by(crate::env::color, terminal)
}

fn color_by(var: impl Fn(&str) -> Option<String>, terminal: bool) -> bool {
    if var("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if var("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    terminal && var("CLICOLOR").as_deref() != Some("0")
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn color_as_no_color_and_clicolor_force_say() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert!(color_by(env(&[]), true));
        assert!(!color_by(env(&[]), false));
        assert!(!color_by(env(&[("NO_COLOR", "1")]), true));
        assert!(color_by(env(&[("NO_COLOR", "")]), true));
        assert!(color_by(env(&[("CLICOLOR_FORCE", "1")]), false));
        assert!(!color_by(env(&[("CLICOLOR_FORCE", "0")]), false));
        assert!(!color_by(
            env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]),
            true
        ));
        assert!(!color_by(env(&[("CLICOLOR", "0")]), true));
    }

    #[test]
    fn quote_for_the_shell_only_what_it_would_change() {
        for plain in [
            "echo.jsonl",
            "fixtures/a-b_c.jsonl",
            "--update",
            "http://h:1/mcp",
            "a=b",
        ] {
            assert_eq!(shell_quote(plain), plain);
        }
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
        assert_eq!(shell_quote("two words"), "'two words'");
        assert_eq!(shell_quote("say \"hi\""), "'say \"hi\"'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("~/x"), "'~/x'");
        assert_eq!(shell_quote("*.jsonl"), "'*.jsonl'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(
            shell_line(["sh", "-c", "exec \"$0\"", "./server"]),
            "sh -c 'exec \"$0\"' ./server"
        );
    }
}
