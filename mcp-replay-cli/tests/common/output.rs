//! What both halves of the machine-readable output tests (tests/output.rs here,
//! the root's tests/output.rs) use.

use super::text;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// stdout as the one JSON document it must be.
pub fn document(output: &Output) -> Value {
    let (out, err) = text(output);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not one JSON document ({e}): {out}{err}"))
}

pub fn junit(path: &Path) -> junit_parser::TestSuites {
    let xml = std::fs::read(path).unwrap();
    junit_parser::from_reader(std::io::Cursor::new(xml))
        .unwrap_or_else(|e| panic!("{} does not parse as JUnit: {e}", path.display()))
}
