//! Re-recording: the `MCP_FIXTURE_UPDATE` modes and atomic fixture writes.

use crate::error::Error;
use crate::fixture::Fixture;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The environment variable that switches tests from comparing to re-recording.
pub const UPDATE_ENV: &str = "MCP_FIXTURE_UPDATE";

/// What a replay does with the server's actual messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateMode {
    /// Only compare (`MCP_FIXTURE_UPDATE` unset, empty, `no` or `0`).
    No,
    /// Rewrite the fixture in place (`1` or `always`); the test passes once written.
    Always,
    /// Write `NAME.jsonl.new` beside the fixture and fail with the command to accept it (`new`).
    New,
}

impl UpdateMode {
    /// Reads [`UPDATE_ENV`]; an unknown value is an error that lists the valid ones.
    pub fn from_env() -> Result<UpdateMode, Error> {
        UpdateMode::parse(std::env::var(UPDATE_ENV).ok().as_deref())
    }

    /// Interprets a value of [`UPDATE_ENV`] (`None` for unset).
    pub fn parse(value: Option<&str>) -> Result<UpdateMode, Error> {
        match value.map(str::trim) {
            None | Some("" | "no" | "0") => Ok(UpdateMode::No),
            Some("1" | "always") => Ok(UpdateMode::Always),
            Some("new") => Ok(UpdateMode::New),
            Some(other) => Err(Error::InvalidUpdateMode {
                value: other.to_owned(),
            }),
        }
    }
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
/// the file already holds the same bytes.
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
    if mode != UpdateMode::New && same_text(fixture, path) {
        return Ok(Written::Unchanged(target));
    }
    write_atomically(&target, |file| {
        fixture.each_line(|line| file.write_all(line.as_bytes()))
    })?;
    Ok(match mode {
        UpdateMode::New => Written::Pending(target),
        _ => Written::Updated(target),
    })
}

/// Where [`UpdateMode::New`] writes the recording of the fixture at `path`:
/// `NAME.jsonl.new` beside it.
pub(crate) fn pending_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".new");
    PathBuf::from(name)
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
    match std::env::var("MCP_REPLAY_FAILPOINT").as_deref() {
        Ok("error-before-rename") => Err(std::io::Error::other("failpoint error-before-rename")),
        Ok("abort-before-rename") => std::process::abort(),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn read_the_documented_values_and_refuse_others() {
        assert_eq!(UpdateMode::parse(None).unwrap(), UpdateMode::No);
        assert_eq!(UpdateMode::parse(Some("no")).unwrap(), UpdateMode::No);
        assert_eq!(UpdateMode::parse(Some("0")).unwrap(), UpdateMode::No);
        assert_eq!(UpdateMode::parse(Some("1")).unwrap(), UpdateMode::Always);
        assert_eq!(
            UpdateMode::parse(Some("always")).unwrap(),
            UpdateMode::Always
        );
        assert_eq!(UpdateMode::parse(Some("new")).unwrap(), UpdateMode::New);
        let err = UpdateMode::parse(Some("yes")).unwrap_err().to_string();
        assert!(err.contains("\"yes\" is not a valid value"), "{err}");
        assert!(
            err.contains("1 or always") && err.contains("new") && err.contains("no or 0"),
            "{err}"
        );
    }
}
