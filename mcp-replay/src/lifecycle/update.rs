//! Re-recording: the `MCP_FIXTURE_UPDATE` modes and atomic fixture writes.

use crate::data::fixture::Fixture;
use crate::error::Error;
use std::io::Write as _;
use std::path::{Path, PathBuf};

pub use crate::env::UPDATE_ENV;

/// What a replay does with the server's actual messages.
///
/// Unset (or `auto`), [`UPDATE_ENV`] means [`UpdateMode::New`] on a developer's machine and
/// [`UpdateMode::No`] where CI is detected ([`ci_detected`]), as insta's `auto` does: a
/// failing test leaves its new recording beside the fixture for `mcp-replay review`, and a
/// CI run writes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateMode {
    /// Only compare (`no` or `0`; `auto` or unset under CI).
    No,
    /// Rewrite the fixture in place when the server's messages differ (`1` or `always`);
    /// the test passes once written.
    Always,
    /// Write `NAME.jsonl.new` beside the fixture when the server's messages differ and fail
    /// with the command to review it (`new`; `auto` or unset outside CI).
    New,
    /// Rewrite the fixture in place even when the server's messages are what it says
    /// (`force`): a fixture written by an older version, or by hand, comes out in today's
    /// canonical form. The test passes once written.
    Force,
}

impl UpdateMode {
    /// Reads [`UPDATE_ENV`] (and, for `auto` or unset, whether CI is detected); an unknown
    /// value is an error that lists the valid ones.
    pub fn from_env() -> Result<UpdateMode, Error> {
        UpdateMode::parse(crate::env::update().as_deref())
    }

    /// What [`UPDATE_ENV`] asks for when it is set, `None` when it is not: the command's
    /// `replay` only compares unless asked (by `--update` or the variable), where a test
    /// run takes unset as `auto`.
    pub fn from_env_if_set() -> Result<Option<UpdateMode>, Error> {
        match crate::env::update() {
            Some(value) => UpdateMode::parse(Some(&value)).map(Some),
            None => Ok(None),
        }
    }

    /// Interprets a value of [`UPDATE_ENV`] (`None` for unset), with `auto` decided by
    /// [`ci_detected`].
    pub fn parse(value: Option<&str>) -> Result<UpdateMode, Error> {
        UpdateMode::parse_in(value, ci_detected())
    }

    /// Interprets a value of [`UPDATE_ENV`] (`None` for unset) as [`parse`](Self::parse)
    /// does, with `ci` saying whether this is a CI run.
    pub fn parse_in(value: Option<&str>, ci: bool) -> Result<UpdateMode, Error> {
        match value.map(str::trim) {
            None | Some("" | "auto") if ci => Ok(UpdateMode::No),
            None | Some("" | "auto") => Ok(UpdateMode::New),
            Some("no" | "0") => Ok(UpdateMode::No),
            Some("1" | "always") => Ok(UpdateMode::Always),
            Some("new") => Ok(UpdateMode::New),
            Some("force") => Ok(UpdateMode::Force),
            Some(other) => Err(Error::InvalidUpdateMode {
                value: other.to_owned(),
            }),
        }
    }

    /// Whether this mode writes the fixture itself (`always`, `force`).
    pub fn rewrites(self) -> bool {
        matches!(self, UpdateMode::Always | UpdateMode::Force)
    }
}

/// Whether this process runs under CI, as insta decides it: the `CI` environment variable
/// (or `TF_BUILD`, Azure Pipelines' own) is set to something other than empty, `0` or
/// `false`.
pub fn ci_detected() -> bool {
    crate::env::ci()
}

/// What writing a recorded fixture did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// The file already held exactly these bytes; nothing was written.
    Unchanged(PathBuf),
    /// The file was (re)written.
    Updated(PathBuf),
    /// `NAME.jsonl.new` was written beside the fixture.
    Pending(PathBuf),
}

/// Writes `fixture` to `path` (or `path.new` in [`UpdateMode::New`]) atomically, after
/// refusing it if it holds a secret ([`Fixture::check_secrets`]): the bytes
/// go to a temporary file in the same folder, are synced, and the file is renamed over
/// the target, so a failure at any point leaves the old file whole. Writes nothing when
/// the file already holds the same bytes, except in [`UpdateMode::Force`].
pub fn write_fixture(fixture: &Fixture, path: &Path, mode: UpdateMode) -> Result<Written, Error> {
    if let Err(Error::Secret {
        line,
        path: json_path,
        rule,
        description,
        ..
    }) = fixture.check_secrets()
    {
        return Err(Error::Secret {
            file: path.display().to_string(),
            line,
            path: json_path,
            rule,
            description,
            writing: true,
        });
    }
    let target = match mode {
        UpdateMode::New => pending_path(path),
        _ => path.to_owned(),
    };
    // What the fixture already says is not a change, in `new` mode too (`force` rewrites it
    // all the same).
    if mode != UpdateMode::Force && same_text(fixture, path) {
        if mode == UpdateMode::New {
            remove_pending(path)?;
        }
        return Ok(Written::Unchanged(path.to_owned()));
    }
    write_atomically(&target, |file| {
        fixture.each_line(|line| file.write_all(line.as_bytes()))
    })?;
    Ok(match mode {
        UpdateMode::New => Written::Pending(target),
        _ => Written::Updated(target),
    })
}

/// `PATH.new`: where [`UpdateMode::New`] writes the recording of the fixture at `path`.
pub fn pending_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".new");
    PathBuf::from(name)
}

/// Removes the pending recording of the fixture at `path` ([`pending_path`]), if any: once
/// the server gives what the fixture says again, it is stale.
pub fn remove_pending(path: &Path) -> Result<(), Error> {
    match std::fs::remove_file(pending_path(path)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(
            format!("removing {}", pending_path(path).display()),
            e,
        )),
        _ => Ok(()),
    }
}

/// Does the file at `path` hold exactly the fixture's canonical text? Compared line by
/// line, so neither text is held whole.
fn same_text(fixture: &Fixture, path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut old = std::io::BufReader::new(file);
    let mut chunk = Vec::new();
    let lines_equal = fixture.each_line(|line| {
        chunk.resize(line.len(), 0);
        match old.read_exact(&mut chunk) {
            Ok(()) if chunk == line.as_bytes() => Ok(()),
            _ => Err(std::io::Error::other("different")),
        }
    });
    // Equal so far, and nothing more in the file.
    lines_equal.is_ok() && old.read(&mut [0u8; 1]).is_ok_and(|n| n == 0)
}

/// Temp file in the target's folder, written by `write` through a buffer, + fsync + rename.
pub(crate) fn write_atomically(
    target: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), Error> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let temp = dir.join(format!(".{file_name}.tmp.{}.{nonce}", std::process::id()));
    let result = (|| {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&temp)?);
        write(&mut file)?;
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        failpoint_before_rename()?;
        std::fs::rename(&temp, target)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        Error::io(format!("writing {}", target.display()), e)
    })
}

/// A test hook for crash safety: `MCP_REPLAY_FAILPOINT=error-before-rename` fails the write
/// after the temporary file is complete; `abort-before-rename` aborts the process there,
/// as a crash or a kill would. Read only on this cold path.
fn failpoint_before_rename() -> std::io::Result<()> {
    match crate::env::failpoint().as_deref() {
        Some("error-before-rename") => Err(std::io::Error::other("failpoint error-before-rename")),
        Some("abort-before-rename") => std::process::abort(),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn read_the_documented_values_and_refuse_others() {
        for ci in [false, true] {
            let parse = |v| UpdateMode::parse_in(v, ci).unwrap();
            assert_eq!(parse(Some("no")), UpdateMode::No);
            assert_eq!(parse(Some("0")), UpdateMode::No);
            assert_eq!(parse(Some("1")), UpdateMode::Always);
            assert_eq!(parse(Some("always")), UpdateMode::Always);
            assert_eq!(parse(Some(" new ")), UpdateMode::New);
            assert_eq!(parse(Some("force")), UpdateMode::Force);
        }
        let err = UpdateMode::parse_in(Some("yes"), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"yes\" is not a valid value"), "{err}");
        assert!(
            ["auto", "1 or always", "new", "force", "no or 0"]
                .iter()
                .all(|v| err.contains(v)),
            "{err}"
        );
    }

    #[test]
    fn take_unset_or_auto_as_new_outside_ci_and_as_no_under_it() {
        for value in [None, Some(""), Some("auto")] {
            assert_eq!(UpdateMode::parse_in(value, false).unwrap(), UpdateMode::New);
            assert_eq!(UpdateMode::parse_in(value, true).unwrap(), UpdateMode::No);
        }
    }

    #[test]
    fn rewrite_an_unchanged_fixture_only_when_forced() {
        let dir = std::env::temp_dir().join(format!("mcp-replay-force-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.jsonl");
        let fixture = Fixture::parse(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
        )
        .unwrap();
        assert!(matches!(
            write_fixture(&fixture, &path, UpdateMode::Always).unwrap(),
            Written::Updated(_)
        ));
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(matches!(
            write_fixture(&fixture, &path, UpdateMode::Always).unwrap(),
            Written::Unchanged(_)
        ));
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            before
        );
        assert!(matches!(
            write_fixture(&fixture, &path, UpdateMode::Force).unwrap(),
            Written::Updated(_)
        ));
        assert!(std::fs::metadata(&path).unwrap().modified().unwrap() > before);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
