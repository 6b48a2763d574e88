//! The picture of a session as a file: where a test's page goes and how it is written.

use crate::error::Error;
use crate::findings::report::Report;
use std::path::Path;

/// The file name of the page of `test` (`crate::module::name`, as `#[mcp_fixture]` names
/// it): `crate.module.name.html`, with any character a file name may not hold on some
/// system written `_`.
pub fn page_name(test: &str) -> String {
    let name: String = test
        .replace("::", ".")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{}.html", name.trim_start_matches('.'))
}

/// Writes the picture of the session of `report` ([`Report::to_html`]) to `path`
/// atomically, creating its folder: `Ok(false)`, and nothing written, when the replay kept
/// no timeline ([`Options::timeline`](crate::Options::timeline)).
pub fn write_html(report: &Report, path: &Path) -> Result<bool, Error> {
    let Some(page) = report.to_html() else {
        return Ok(false);
    };
    crate::lifecycle::update::write_atomically(path, |file| {
        use std::io::Write as _;
        file.write_all(page.as_bytes())
    })
    .map_err(|e| match e {
        // Whatever step failed (its folder, the temporary file), the page names it.
        Error::Io { source, .. } => Error::io(format!("writing {}", path.display()), source),
        other => other,
    })?;
    Ok(true)
}
