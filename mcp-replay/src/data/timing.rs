//! Times: the grammar of a time as people type it (`700ms`, `2s`), and the recorded
//! timing of a session that a mock server can play back.

use crate::error::Error;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

/// Reads a time as people type it: `700ms`, `2s`, `1.5s`, `2m`, or a bare number of
/// milliseconds (`700`). The command's `--timeout` and `--pace` and the fixture header's
/// `"timeout"` take this form.
///
/// ```
/// use mcp_replay::_support::parse_duration;
/// use std::time::Duration;
///
/// assert_eq!(parse_duration("700ms"), Ok(Duration::from_millis(700)));
/// assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
/// assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
/// assert_eq!(parse_duration("250"), Ok(Duration::from_millis(250)));
/// assert!(parse_duration("soon").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, crate::error::Invalid> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale = match unit.trim() {
        "" | "ms" => 0.001,
        "s" => 1.0,
        "m" | "min" => 60.0,
        _ => f64::NAN,
    };
    match number.parse::<f64>() {
        Ok(n) if n.is_finite() && scale.is_finite() && n * scale < 1e9 => {
            Ok(Duration::from_secs_f64(n * scale))
        }
        _ => Err(crate::error::Invalid::new(format!(
            "{text:?} is not a time: give e.g. 700ms, 2s, 1.5s, 2m, or a number of milliseconds"
        ))),
    }
}

/// When each message of a recording crossed the proxy (`mcp-replay record --timing FILE`),
/// for a mock server that plays the recorded pauses back ([`Options::timing`](crate::Options::timing)): for
/// clients with timeouts, progress bars or debouncing. Kept beside the fixture, not in it,
/// so that a fixture stays the same bytes from one recording to the next.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timing {
    /// Milliseconds since the session began, by fixture line.
    ms_of_line: HashMap<usize, f64>,
}

impl Timing {
    /// Reads a timing file: one `{"line": N, "ms": T}` a line.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Timing, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            action: format!("reading the timing file {}", path.display()),
            source: e,
        })?;
        Timing::parse(&text, &path.display().to_string())
    }

    /// Parses a timing file's text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Timing, Error> {
        let mut ms_of_line = HashMap::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let value: Value = serde_json::from_str(line).map_err(|e| Error::Parse {
                file: source.to_owned(),
                line: i + 1,
                column: e.column(),
                message: format!("not valid JSON: {e}"),
            })?;
            let (Some(at), Some(ms)) = (value["line"].as_u64(), value["ms"].as_f64()) else {
                return Err(Error::Parse {
                    file: source.to_owned(),
                    line: i + 1,
                    column: 1,
                    message: "a timing line is {\"line\": N, \"ms\": T}".into(),
                });
            };
            ms_of_line.insert(at as usize, ms);
        }
        Ok(Timing { ms_of_line })
    }

    /// When fixture line `line` crossed, in milliseconds since the session began.
    pub(crate) fn ms(&self, line: usize) -> Option<f64> {
        self.ms_of_line.get(&line).copied()
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn read_times_as_people_type_them() {
        let ms = Duration::from_millis;
        for (text, want) in [
            ("700ms", ms(700)),
            ("700", ms(700)),
            ("0", ms(0)),
            ("2s", ms(2000)),
            (" 2 s ", ms(2000)),
            ("0.25s", ms(250)),
            ("2m", ms(120_000)),
        ] {
            assert_eq!(parse_duration(text), Ok(want), "{text}");
        }
        for bad in ["", "ms", "2h", "-1s", "1e3", "two", "1.2.3s", "NaN"] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.reason().contains("700ms, 2s"), "{bad}: {e}");
        }
    }
}
