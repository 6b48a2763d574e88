//! The machine-specific folders of the `paths` rule (workspace, home, temp) and their
//! placeholders.

use super::placeholder::is_placeholder;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The placeholders of the `paths` rule, one per machine-specific folder.
pub(crate) const FOLDER_PLACEHOLDERS: [&str; 3] = ["<WORKSPACE>", "<HOME>", "<TMP>"];

/// The machine-specific folders the `paths` rule replaces, longest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Paths {
    prefixes: Vec<(String, &'static str)>,
}

/// `folder` with its links resolved, remembered for the last folder asked about: every
/// `Rules::default()` asks for the temp folder, and resolving it is a system call per link
/// (a few microseconds a test on a virtual machine). A changed `TMPDIR` is a different
/// folder and is resolved anew.
fn real_path_of(folder: &Path) -> Option<PathBuf> {
    static LAST: Mutex<Option<(PathBuf, Option<PathBuf>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match &*last {
        Some((asked, real)) if asked == folder => real.clone(),
        _ => {
            let real = folder.canonicalize().ok();
            *last = Some((folder.to_owned(), real.clone()));
            real
        }
    }
}

impl Paths {
    /// The folders of this machine: `workspace` (when given), `$HOME`, the temp folder.
    pub fn of_this_machine(workspace: Option<&Path>) -> Paths {
        let mut paths = Paths::default();
        if let Some(ws) = workspace {
            paths.add(ws, "<WORKSPACE>");
        }
        if let Some(home) = crate::env::home() {
            paths.add(Path::new(&home), "<HOME>");
        }
        let tmp = std::env::temp_dir();
        paths.add(&tmp, "<TMP>");
        if let Some(real) = real_path_of(&tmp) {
            paths.add(&real, "<TMP>");
        }
        paths
    }

    /// Adds a folder and its placeholder.
    pub fn add(&mut self, folder: &Path, placeholder: &'static str) {
        let text = folder.to_string_lossy();
        let text = text.trim_end_matches(['/', '\\']);
        // The root folder (or an empty one) would rewrite every absolute path.
        if text.len() < 2 || self.prefixes.iter().any(|(p, _)| p == text) {
            return;
        }
        self.prefixes.push((text.to_owned(), placeholder));
        self.prefixes.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
    }

    /// The folder `placeholder` (`<WORKSPACE>`, `<HOME>`, `<TMP>`) stands for here.
    pub(crate) fn folder(&self, placeholder: &str) -> Option<&str> {
        self.prefixes
            .iter()
            .find(|(_, p)| *p == placeholder)
            .map(|(folder, _)| folder.as_str())
    }

    /// The placeholders of `s` (`<WORKSPACE>`, `<HOME>`, `<TMP>`) written back as this
    /// machine's folders: what a client message recorded elsewhere names here.
    pub(crate) fn expand<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let mut out: Cow<'a, str> = Cow::Borrowed(s);
        for placeholder in FOLDER_PLACEHOLDERS {
            if !out.contains(placeholder) {
                continue;
            }
            if let Some(folder) = self.folder(placeholder) {
                out = Cow::Owned(out.replace(placeholder, folder));
            }
        }
        out
    }

    /// Every absolute path under one of the folders written with its placeholder (the
    /// `paths` rule on one string).
    pub(super) fn replace<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let mut out: Cow<'a, str> = Cow::Borrowed(s);
        for (prefix, placeholder) in &self.prefixes {
            if !out.contains(prefix.as_str()) {
                continue;
            }
            let mut result = String::with_capacity(out.len());
            let mut rest: &str = &out;
            while let Some(i) = rest.find(prefix.as_str()) {
                let after = &rest[i + prefix.len()..];
                // What precedes the match: the text since the previous match, or (right
                // after it) what was written for the previous match.
                let before_ok = path_may_start_after(if i > 0 { &rest[..i] } else { &result });
                let after_ok = after.chars().next().is_none_or(|c| {
                    matches!(c, '/' | '\\')
                        || !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
                });
                result.push_str(&rest[..i]);
                if before_ok && after_ok {
                    result.push_str(placeholder);
                } else {
                    result.push_str(prefix);
                }
                rest = after;
            }
            result.push_str(rest);
            out = Cow::Owned(result);
        }
        out
    }
}

/// Can an absolute path start right after `before`? Not inside a word, a file name or a
/// path, nor right after a placeholder: that stands for text a path may continue, so
/// `<TMP>/root/x` stays as it is when `/root` is the home folder (else normalizing twice
/// would differ from normalizing once).
fn path_may_start_after(before: &str) -> bool {
    match before.chars().next_back() {
        None => true,
        Some('>') => !before
            .rfind('<')
            .is_some_and(|i| is_placeholder(&before[i..])),
        Some(c) => !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'),
    }
}

impl Paths {
    /// The folders of an example machine (workspace `/home/ada/work/proj`, home
    /// `/home/ada`, temp `/tmp`), the same on every machine: for tests and the fuzzer.
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn example() -> Paths {
        let mut p = Paths::default();
        p.add(Path::new("/home/ada/work/proj"), "<WORKSPACE>");
        p.add(Path::new("/home/ada"), "<HOME>");
        p.add(Path::new("/tmp"), "<TMP>");
        p
    }
}

#[cfg(test)]
mod should {
    use super::*;

    fn paths() -> Paths {
        Paths::example()
    }

    #[cfg(unix)]
    #[test]
    fn resolve_each_folder_asked_about_even_after_another() {
        let base = std::env::temp_dir().join(format!("mcp-replay-real-{}", std::process::id()));
        let (a, b) = (base.join("a"), base.join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let (link_a, link_b) = (base.join("to-a"), base.join("to-b"));
        std::os::unix::fs::symlink(&a, &link_a).unwrap();
        std::os::unix::fs::symlink(&b, &link_b).unwrap();
        let real = |p: &Path| p.canonicalize().unwrap();
        // Asked twice (the second from what was remembered), then another folder, then
        // the first again: each answer is that folder's own.
        assert_eq!(real_path_of(&link_a), Some(real(&a)));
        assert_eq!(real_path_of(&link_a), Some(real(&a)));
        assert_eq!(real_path_of(&link_b), Some(real(&b)));
        assert_eq!(real_path_of(&link_a), Some(real(&a)));
        assert_eq!(real_path_of(&base.join("missing")), None);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn write_folder_placeholders_back_as_this_machines_folders() {
        let p = paths();
        assert_eq!(
            p.expand("file://<TMP>/x and <HOME>/.config, <WORKSPACE>/src"),
            "file:///tmp/x and /home/ada/.config, /home/ada/work/proj/src"
        );
        assert!(matches!(p.expand("<REQUEST_ID> /usr"), Cow::Borrowed(_)));
        // Back and forth is the identity on what the rule replaces.
        assert_eq!(p.replace(&p.expand("<TMP>/a/b")), "<TMP>/a/b");
    }
}
