//! The shape of the code, checked: the invariants of `docs/ARCHITECTURE.md` that a reader
//! relies on and a change could quietly break. Each test reads the sources of `src/` as
//! text (std only, no parser): comments, string and character literals are blanked out
//! first, and test code is left out, i.e. the files a `#[cfg(test)] mod x;` (or
//! `#[cfg(all(test, ...))]`) declares, with everything under them, and the bodies of
//! inline `#[cfg(test)] mod x { ... }` blocks. Crude, like `/work/shared/tools/`'s
//! `import-cycles` and `long-functions`, whose counting they follow; a failure lists the
//! offenders.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a function of non-test code may be, in lines (its `fn` line to its closing
/// brace).
const MAX_FUNCTION_LINES: usize = 80;
/// The longest a non-test file may be, in lines.
const MAX_FILE_LINES: usize = 1_000;

/// The files of `engine/` that own the runtime or the clock: the shells of the replay and
/// the mock, the pipe, child processes and HTTP. Every other file of `engine/` is a core:
/// pure decisions, driven by a shell (a name ending in `/` is a folder).
const SHELLS: [&str; 6] = [
    "engine/replay/shell.rs",
    "engine/replay/serve.rs",
    "engine/mock/mod.rs",
    "engine/transport.rs",
    "engine/process.rs",
    "engine/http/",
];

/// The layers `normalize/` and `json/` sit under: a path into one of them from there
/// points the wrong way. Besides the modules, the crate root's re-exports of their types.
const ABOVE_THE_DATA_LAYER: [&str; 10] = [
    "fixture",
    "replay",
    "harness",
    "report",
    "Fixture",
    "Report",
    "Mismatch",
    "MismatchKind",
    "ServeOutput",
    "ServerError",
];

/// One source file of the crate.
struct Source {
    /// Relative to `src/`, with `/`: `replay/session.rs`.
    name: String,
    /// Its module path: `["replay", "session"]`; `[]` for `lib.rs`.
    module: Vec<String>,
    /// Its whole text.
    text: String,
    /// Its text with comments and literals blanked and inline test modules blanked.
    code: String,
    /// Declared by a `#[cfg(test)] mod` (or inside one).
    test: bool,
}

/// Every `.rs` file of `src/`, sorted by name, test files marked.
fn sources() -> Vec<Source> {
    sources_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// Every `.rs` file under `root` (a crate's `src/`), sorted by name, test files marked.
fn sources_in(root: &Path) -> Vec<Source> {
    let root = root.to_path_buf();
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths.sort();
    let mut sources: Vec<Source> = paths
        .iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .expect("under src/")
                .to_string_lossy()
                .replace('\\', "/");
            let mut module: Vec<String> = name
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_owned)
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            let text = std::fs::read_to_string(path).expect("a readable source file");
            let blank = strip(&text);
            let code = blank_test_blocks(&blank);
            Source {
                name,
                module,
                text,
                code,
                test: false,
            }
        })
        .collect();
    let mut test_modules: Vec<Vec<String>> = Vec::new();
    for source in &sources {
        for child in test_module_declarations(&source.code) {
            let mut module = source.module.clone();
            module.push(child);
            test_modules.push(module);
        }
    }
    for source in &mut sources {
        source.test = test_modules.iter().any(|m| source.module.starts_with(m));
    }
    sources
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` with comments, string literals (raw, byte, plain) and character literals
/// replaced by spaces, line breaks kept: what the `long-functions` tool does.
fn strip(text: &str) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, part: &[char]| {
        out.extend(part.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let word_before = i > 0 && (s[i - 1].is_alphanumeric() || s[i - 1] == '_');
        if rest.starts_with(&['/', '/']) {
            let end = find(&s, i, &['\n']).unwrap_or(s.len());
            blank(&mut out, &s[i..end]);
            i = end;
        } else if rest.starts_with(&['/', '*']) {
            let end = find(&s, i + 2, &['*', '/']).map_or(s.len(), |e| e + 2);
            blank(&mut out, &s[i..end]);
            i = end;
        } else if !word_before && (rest.starts_with(&['r', '"']) || rest.starts_with(&['r', '#'])) {
            let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
            if rest.get(1 + hashes) != Some(&'"') {
                out.push(s[i]);
                i += 1;
                continue;
            }
            let mut close = vec!['"'];
            close.extend(std::iter::repeat_n('#', hashes));
            let end = find(&s, i + 2 + hashes, &close).map_or(s.len(), |e| e + close.len());
            blank(&mut out, &s[i..end]);
            i = end;
        } else if s[i] == '"' {
            let mut j = i + 1;
            while j < s.len() && s[j] != '"' {
                j += if s[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(s.len());
            blank(&mut out, &s[i..end]);
            i = end;
        } else if s[i] == '\'' && char_literal_len(rest).is_some() {
            let len = char_literal_len(rest).expect("checked");
            blank(&mut out, &s[i..i + len]);
            i += len;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// The length of the character literal `rest` starts with (`'a'`, `'\n'`, `'\u{1F600}'`),
/// or `None` for a lifetime or a label.
fn char_literal_len(rest: &[char]) -> Option<usize> {
    match rest {
        ['\'', '\\', 'u', '{', ..] => find(rest, 1, &['\'']).map(|e| e + 1),
        ['\'', '\\', _, '\'', ..] => Some(4),
        ['\'', c, '\'', ..] if *c != '\\' && *c != '\'' => Some(3),
        _ => None,
    }
}

/// Where `needle` first occurs in `s` at or after `from`.
fn find(s: &[char], from: usize, needle: &[char]) -> Option<usize> {
    (from..s.len()).find(|&k| s[k..].starts_with(needle))
}

/// The end (exclusive) of the test attribute (`#[cfg(test)]` or `#[cfg(all(test, ...))]`)
/// that `code[at..]` starts with.
fn test_attribute(code: &str, at: usize) -> Option<usize> {
    let rest = &code[at..];
    for head in ["#[cfg(test)]", "#[cfg(all(test,"] {
        if rest.starts_with(head) {
            let close = rest.find(")]")?;
            return Some(at + close + 2);
        }
    }
    None
}

/// After a test attribute ending at `from`: skips other attributes, whitespace and a
/// visibility; then `mod NAME` and what follows it (`;` or `{`) as `(name, its offset)`.
fn module_after(code: &str, from: usize) -> Option<(String, usize)> {
    let mut rest = code[from..].trim_start();
    while rest.starts_with("#[") {
        rest = rest[rest.find(']')? + 1..].trim_start();
    }
    if let Some(after) = rest.strip_prefix("pub") {
        rest = after.trim_start();
        if rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start();
        }
    }
    let after = rest.strip_prefix("mod")?;
    if !after.starts_with(char::is_whitespace) {
        return None;
    }
    let after = after.trim_start();
    let name: String = after
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let tail = after[name.len()..].trim_start();
    let offset = code.len() - tail.len();
    (!name.is_empty()).then_some((name, offset))
}

/// The modules that `code` declares under a test attribute as files (`mod tests;`).
fn test_module_declarations(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices("#[cfg(") {
        if let Some(end) = test_attribute(code, at) {
            if let Some((name, next)) = module_after(code, end) {
                if code[next..].starts_with(';') {
                    names.push(name);
                }
            }
        }
    }
    names
}

/// The offset of the brace matching the `{` at `open`.
fn matching_brace(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (k, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + k;
                }
            }
            _ => {}
        }
    }
    code.len() - 1
}

/// `code` with the inline test modules (`#[cfg(test)] mod x { ... }`) blanked, line
/// breaks kept.
fn blank_test_blocks(code: &str) -> String {
    let mut out = code.to_owned();
    for (at, _) in code.match_indices("#[cfg(") {
        let Some(end) = test_attribute(code, at) else {
            continue;
        };
        let Some((_, next)) = module_after(code, end) else {
            continue;
        };
        if code[next..].starts_with('{') {
            let close = matching_brace(code, next);
            let blanked: String = code[at..=close]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' })
                .collect();
            out.replace_range(at..=close, &blanked);
        }
    }
    out
}

/// Expands a `use` tree: `a::{b, c::{d, e}}` into `a::b`, `a::c::d`, `a::c::e` (aliases
/// dropped; [`expand_aliased`] keeps them).
fn expand(tree: &str) -> Vec<String> {
    expand_aliased(tree)
        .into_iter()
        .map(|leaf| leaf.split(" as ").next().unwrap_or("").replace(' ', ""))
        .collect()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths `code` names: each `use` tree expanded, and every `crate::`, `super::` or
/// `self::` path written elsewhere.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::with_capacity(code.len());
    let mut i = 0;
    while let Some(k) = code[i..].find("use ").map(|k| i + k) {
        let boundary = k == 0 || !is_word(code[..k].chars().last().expect("k > 0"));
        let Some(end) = code[k..].find(';').map(|e| k + e) else {
            break;
        };
        if boundary {
            rest.push_str(&code[i..k]);
            paths.extend(expand(&code[k + 4..end]));
            i = end + 1;
        } else {
            rest.push_str(&code[i..k + 4]);
            i = k + 4;
        }
    }
    rest.push_str(&code[i..]);
    for head in ["crate::", "super::", "self::"] {
        for (k, _) in rest.match_indices(head) {
            let before = rest[..k].chars().last();
            if before.is_some_and(|c| is_word(c) || c == ':') {
                continue;
            }
            let len = rest[k..]
                .char_indices()
                .find(|&(_, c)| !(is_word(c) || c == ':'))
                .map_or(rest.len() - k, |(e, _)| e);
            paths.push(rest[k..k + len].trim_end_matches(':').to_owned());
        }
    }
    paths
}

/// The absolute module path `path`, written in `module`, names: `crate::`, `super::` and
/// `self::` resolved, and a first segment that is a child module of `module` (a file)
/// taken as one. `None` for a path outside the crate (`std::`, `serde_json::`).
fn absolute(module: &[String], path: &str, files: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (mut base, mut rest): (Vec<String>, &[&str]) = match segments.first()? {
        &"crate" => (Vec::new(), &segments[1..]),
        &"super" | &"self" => (module.to_vec(), &segments[..]),
        first => {
            let mut child = module.to_vec();
            child.push((*first).to_owned());
            if !files.contains(&child) {
                return None;
            }
            (module.to_vec(), &segments[..])
        }
    };
    while let Some((&first, tail)) = rest.split_first() {
        match first {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = tail;
    }
    base.extend(rest.iter().map(|s| (*s).to_owned()));
    Some(base)
}

/// The file (as its module path) that `absolute` lies in: its longest prefix that is a
/// file of the crate.
fn file_of(absolute: &[String], files: &BTreeSet<Vec<String>>) -> Vec<String> {
    (0..=absolute.len())
        .rev()
        .map(|k| absolute[..k].to_vec())
        .find(|prefix| files.contains(prefix))
        .unwrap_or_default()
}

/// The import graph of the non-test files: for each file, the files its paths name,
/// leaving out itself and its ancestors (a child names its parent's items as a matter of
/// course: `use super::Item`).
fn import_graph(sources: &[Source]) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut graph = BTreeMap::new();
    for source in sources.iter().filter(|s| !s.test) {
        let targets: BTreeSet<Vec<String>> = paths_in(&source.code)
            .iter()
            .filter_map(|path| absolute(&source.module, path, &files))
            .map(|path| file_of(&path, &files))
            .filter(|target| !source.module.starts_with(target))
            .filter(|target| sources.iter().any(|s| &s.module == target && !s.test))
            .collect();
        graph.insert(source.module.clone(), targets);
    }
    graph
}

/// The files reachable from `start` in `graph`.
fn reachable(
    graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    start: &[String],
) -> BTreeSet<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![start.to_vec()];
    while let Some(node) = stack.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    seen
}

/// The strongly connected components of more than one file: the import cycles.
fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    let reach: BTreeMap<_, _> = graph
        .keys()
        .map(|n| (n.clone(), reachable(graph, n)))
        .collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for node in graph.keys() {
        if done.contains(node) || !reach[node].contains(node) {
            continue;
        }
        let component: Vec<Vec<String>> = reach[node]
            .iter()
            .filter(|other| reach[*other].contains(node))
            .cloned()
            .collect();
        done.extend(component.iter().cloned());
        found.push(component);
    }
    found
}

fn file_name(module: &[String], sources: &[Source]) -> String {
    sources
        .iter()
        .find(|s| s.module == module)
        .map_or_else(|| module.join("/"), |s| s.name.clone())
}

#[test]
fn no_import_cycle_among_the_files_of_src() {
    let sources = sources();
    let found = cycles(&import_graph(&sources));
    let listed: Vec<String> = found
        .iter()
        .map(|c| {
            c.iter()
                .map(|m| file_name(m, &sources))
                .collect::<Vec<_>>()
                .join(" <-> ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} import cycle(s) among the files of src/ (each file imports another of its \
         cycle, directly or not; move the shared type to the lower layer):\n{}",
        found.len(),
        listed.join("\n")
    );
}

#[test]
fn normalize_and_json_import_nothing_from_the_layers_above() {
    let sources = sources();
    let files: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut offenders = Vec::new();
    for source in &sources {
        let below = source.module.first().is_some_and(|m| m == "normalize")
            || source
                .module
                .starts_with(&["data".to_owned(), "json".to_owned()]);
        if !below || source.test {
            continue;
        }
        for path in paths_in(&source.code) {
            let Some(target) = absolute(&source.module, &path, &files) else {
                continue;
            };
            // A module of a room (`data/fixture`) by its own name; a root re-export by its.
            let named = match target.first().map(String::as_str) {
                Some("data" | "engine" | "findings" | "lifecycle" | "analyses") => target.get(1),
                _ => target.first(),
            };
            if named.is_some_and(|name| ABOVE_THE_DATA_LAYER.contains(&name.as_str())) {
                offenders.push(format!("{}: {path}", source.name));
            }
        }
    }
    offenders.sort();
    offenders.dedup();
    assert!(
        offenders.is_empty(),
        "normalize/ and json/ are the data layer: they import nothing of fixture, replay, \
         harness or report; pass them what they need instead:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_replay_and_mock_cores_use_no_tokio_and_no_clock() {
    let sources = sources();
    let shell = |name: &str| {
        SHELLS
            .iter()
            .any(|s| name == *s || (s.ends_with('/') && name.starts_with(s)))
    };
    let cores: Vec<&Source> = sources
        .iter()
        .filter(|s| s.name.starts_with("engine/") && !s.test && !shell(&s.name))
        .collect();
    let mut offenders = Vec::new();
    for source in &cores {
        let code: String = source.code.split_whitespace().collect();
        let words = source.code.split(|c: char| !is_word(c));
        if words.into_iter().any(|w| w == "tokio") {
            offenders.push(format!("{}: tokio", source.name));
        }
        for clock in ["Instant::now", "SystemTime::now"] {
            if code.contains(clock) {
                offenders.push(format!("{}: {clock}", source.name));
            }
        }
    }
    let named = |core: &str| cores.iter().any(|s| s.name == core);
    assert!(
        named("engine/replay/session.rs") && named("engine/mock/session/mod.rs"),
        "the cores are found: {:?}",
        cores.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for shell in SHELLS {
        assert!(
            sources.iter().any(|s| s.name.starts_with(shell)),
            "{shell} is named as a shell but does not exist"
        );
    }
    assert!(
        offenders.is_empty(),
        "the cores take each event with its instant from their shells and own no runtime \
         type and no clock (a file that must is a shell: SHELLS):\n{}",
        offenders.join("\n")
    );
}

/// Each function of `code` as `(its name, its first line, its length in lines)`, counted
/// as `long-functions` does: from the line of `fn` to the line of the closing brace.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("fn") {
        if code[..at].chars().last().is_some_and(is_word) {
            continue;
        }
        let after = &code[at + 2..];
        if !after.starts_with(char::is_whitespace) {
            continue;
        }
        let name: String = after
            .trim_start()
            .chars()
            .take_while(|&c| is_word(c))
            .collect();
        if name.is_empty() {
            continue;
        }
        let Some(open) = after.find(['{', ';']) else {
            continue;
        };
        if !after[open..].starts_with('{') {
            continue;
        }
        let close = matching_brace(code, at + 2 + open);
        let first = code[..at].matches('\n').count() + 1;
        let last = code[..close].matches('\n').count() + 1;
        found.push((name, first, last - first + 1));
    }
    found
}

#[test]
fn no_function_of_non_test_code_is_over_80_lines() {
    let mut offenders = Vec::new();
    for source in sources().iter().filter(|s| !s.test) {
        for (name, line, lines) in functions(&source.code) {
            if lines > MAX_FUNCTION_LINES {
                offenders.push(format!("{lines} lines: {}:{line} {name}", source.name));
            }
        }
    }
    offenders.sort();
    assert!(
        offenders.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them into named helpers):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn no_file_of_non_test_code_is_over_1000_lines() {
    let offenders: Vec<String> = sources()
        .iter()
        .filter(|s| !s.test && s.text.lines().count() > MAX_FILE_LINES)
        .map(|s| format!("{} lines: {}", s.text.lines().count(), s.name))
        .collect();
    assert!(
        offenders.is_empty(),
        "files over {MAX_FILE_LINES} lines (make a folder module with a file per concern, \
         the tests in tests.rs):\n{}",
        offenders.join("\n")
    );
}

/// Files (relative to `src/`) that may read the environment: `env.rs` alone, as insta's
/// `env.rs` (docs/ARCHITECTURE.md, "Invariants").
const READS_THE_ENVIRONMENT: &[&str] = &["env.rs"];

/// Files that may read a fixture's header for a policy: the resolve step
/// (`Options::resolve`) and the fixture's own rules (`Rules::for_fixture`, in the fixture's
/// file), and the fixture's own folder, which parses and writes it.
const READS_THE_HEADER: &[&str] = &["options.rs", "data/fixture.rs", "data/fixture/"];

#[test]
fn only_env_rs_reads_the_environment() {
    let offenders: Vec<String> = sources()
        .iter()
        .filter(|s| !s.test && !READS_THE_ENVIRONMENT.contains(&s.name.as_str()))
        .filter(|s| {
            let code: String = s.code.split_whitespace().collect();
            ["env::var(", "env::var_os(", "env::vars("]
                .iter()
                .any(|call| code.contains(call))
        })
        .map(|s| s.name.clone())
        .collect();
    assert!(
        offenders.is_empty(),
        "read an environment variable through env.rs (one function per variable), not \
         std::env here:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn no_header_is_read_below_the_resolve_step() {
    let offenders: Vec<String> = sources()
        .iter()
        .filter(|s| !s.test)
        .filter(|s| {
            !READS_THE_HEADER.iter().any(|allowed| {
                s.name == *allowed || (allowed.ends_with('/') && s.name.starts_with(allowed))
            })
        })
        .filter(|s| {
            s.code
                .split_whitespace()
                .collect::<String>()
                .contains(".header()")
        })
        .map(|s| s.name.clone())
        .collect();
    assert!(
        offenders.is_empty(),
        "the header meets the options, the rules and the environment in Options::resolve \
         (and the rules in Rules::for_fixture); below it, read Settings:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_check() {
    // The parsing above, on known text: a guard against a check that passes because it
    // reads nothing.
    let code = strip("use crate::a::{b, c::{d as e}};\nlet s = \"crate::x::y\"; // super::z\n");
    assert_eq!(paths_in(&code), ["crate::a::b", "crate::a::c::d"]);
    let code = blank_test_blocks(&strip(
        "fn long() {\n\n}\n#[cfg(test)]\nmod tests {\n    fn hidden() {}\n}\n#[cfg(test)]\nmod more;\n",
    ));
    assert_eq!(functions(&code), [("long".to_owned(), 1, 3)]);
    assert_eq!(test_module_declarations(&code), ["more"]);
    let sources = sources();
    assert!(sources.iter().any(|s| s.name == "lib.rs" && !s.test));
    assert!(sources
        .iter()
        .any(|s| s.name == "engine/replay/tests.rs" && s.test));
}

/// The rooms of `src/`, in order: a file imports only from its own room and from the rooms
/// before it, and in engine/ the replay and the mock import nothing of each other
/// (docs/ARCHITECTURE.md, "The runtime, by room"). The first is the data layer,
/// whose files import only one another. A room is a folder or a file at the top of `src/`.
const ROOMS: [&[&str]; 8] = [
    &["env", "error", "terminal", "data", "normalize"],
    &["findings"],
    &["analyses"],
    &["options"],
    &["engine"],
    &["lifecycle"],
    &["harness"],
    &["lib"],
];

/// The place of a file's room in [`ROOMS`]; `None` for a room the list does not name.
fn room_of(module: &[String]) -> Option<usize> {
    let room = module.first().map_or("lib", String::as_str);
    ROOMS.iter().position(|rooms| rooms.contains(&room))
}

/// The command's crate (`mcp-replay-cli/src`) in its two layers: each command (`cmd/X.rs`)
/// imports none of the others, and the modules they share (the arguments, the output, the
/// client, the proxy, ...) import no command; only the dispatch (`cli.rs`, `lib.rs`) names
/// them all.
#[test]
fn the_commands_import_one_another_nothing_and_the_shared_modules_no_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-replay-cli/src");
    let sources = sources_in(&root);
    assert!(sources.len() > 20, "the command's sources are found");
    let graph = import_graph(&sources);
    let command = |m: &[String]| m.first().is_some_and(|f| f == "cmd") && m.len() > 1;
    let dispatch = |m: &[String]| m.is_empty() || m == ["cli"] || m == ["cmd"];
    let mut offenders = Vec::new();
    for (from, targets) in &graph {
        for target in targets.iter().filter(|t| command(t)) {
            let own = from.get(1) == target.get(1) && command(from);
            if !own && !dispatch(from) {
                offenders.push(format!(
                    "{} imports {}",
                    file_name(from, &sources),
                    file_name(target, &sources)
                ));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "a command imports another, or a shared module a command (move what they share \
         into a shared module):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn every_file_imports_only_from_its_room_and_the_rooms_before_it() {
    let sources = sources();
    let graph = import_graph(&sources);
    let mut unplaced = BTreeSet::new();
    let mut offenders = Vec::new();
    for (from, targets) in &graph {
        let Some(here) = room_of(from) else {
            unplaced.insert(file_name(from, &sources));
            continue;
        };
        for target in targets {
            // The replay and the mock share what they share through engine/ (int_map.rs,
            // polls.rs) and the rooms before it, never each other's files.
            let apart = |a: &str, b: &str| {
                from.get(1).is_some_and(|m| m == a) && target.get(1).is_some_and(|m| m == b)
            };
            let crossed = from.first().is_some_and(|r| r == "engine")
                && (apart("mock", "replay") || apart("replay", "mock"));
            match room_of(target) {
                Some(there) if there <= here && !crossed => {}
                _ => offenders.push(format!(
                    "{} imports {}",
                    file_name(from, &sources),
                    file_name(target, &sources)
                )),
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "files in no room of ROOMS: {unplaced:?}"
    );
    assert!(
        offenders.is_empty(),
        "imports from a later room (move the shared item to the earlier room both may \
         import, or pass it in):\n{}",
        offenders.join("\n")
    );
}

/// The top-level items of `code` (brace depth 0), each with its attributes: the text up
/// to its `;` or its closing brace.
fn items(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut depth) = (0, 0usize);
    for (k, c) in code.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    out.push(code[start..=k].trim());
                    start = k + 1;
                }
            }
            ';' if depth == 0 => {
                out.push(code[start..=k].trim());
                start = k + 1;
            }
            _ => {}
        }
    }
    out
}

/// `item` without its attributes, and whether one of them is `#[doc(hidden)]`.
fn without_attributes(item: &str) -> (&str, bool) {
    let (mut rest, mut hidden) = (item.trim_start(), false);
    while rest.starts_with("#[") || rest.starts_with("#![") {
        let end = rest.find(']').map_or(rest.len(), |e| e + 1);
        let mut depth = 0i32;
        let mut close = end;
        for (k, c) in rest.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        close = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        hidden |= rest[..close].replace(' ', "").contains("doc(hidden)");
        rest = rest[close..].trim_start();
    }
    (rest, hidden)
}

/// Expands a `use` tree into `(path, the name it is used as)`: `a::{b, c as d}` into
/// `(a::b, b)`, `(a::c, d)`.
fn use_leaves(tree: &str) -> Vec<(String, String)> {
    expand_aliased(tree)
        .into_iter()
        .map(|leaf| match leaf.split_once(" as ") {
            Some((path, alias)) => (path.trim().to_owned(), alias.trim().to_owned()),
            None => {
                let name = leaf.rsplit("::").next().unwrap_or(&leaf).trim().to_owned();
                (leaf.trim().to_owned(), name)
            }
        })
        .collect()
}

/// `a::{b, c::{d, e as f}}` into `a::b`, `a::c::d`, `a::c::e as f` (aliases kept).
fn expand_aliased(tree: &str) -> Vec<String> {
    let tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = tree.find('{') else {
        return vec![tree.replace(" :: ", "::")];
    };
    let head = tree[..open].replace(' ', "");
    let body = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut parts, mut depth, mut current) = (Vec::new(), 0i32, String::new());
    for c in body.chars() {
        match c {
            ',' if depth == 0 => parts.push(std::mem::take(&mut current)),
            '{' => {
                depth += 1;
                current.push(c);
            }
            '}' => {
                depth -= 1;
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand_aliased(p).into_iter().map(|l| format!("{head}{l}")))
        .map(|l| l.replace("::self", ""))
        .collect()
}

/// The public names of the crate, as a reader of its documentation meets them: the path
/// of each public item from the crate root (`mcp_replay::harness::Test`), and each public
/// method of a public type (`Test::timeout`). Read from the sources as text, all features
/// at once; under a `#[doc(hidden)]` module, a name is marked `(hidden)`.
struct Surface<'a> {
    sources: &'a [Source],
    names: BTreeSet<String>,
}

impl Surface<'_> {
    /// The file of `module`, if it is one.
    fn file(&self, module: &[String]) -> Option<&Source> {
        self.sources.iter().find(|s| s.module == module && !s.test)
    }

    /// Records the public items of `code` (the module `module`) under the path `shown`.
    fn visit(&mut self, shown: &str, module: &[String], code: &str, hidden: bool) {
        for item in items(code) {
            let (rest, hidden_here) = without_attributes(item);
            let hidden = hidden || hidden_here;
            let Some(rest) = rest.strip_prefix("pub ") else {
                continue;
            };
            let mut words = rest.split_whitespace();
            let mut kind = words.next().unwrap_or("");
            while matches!(kind, "async" | "unsafe" | "const" | "extern")
                && !(kind == "const"
                    && rest.trim_start().starts_with("const ")
                    && !rest.contains("fn "))
            {
                kind = words.next().unwrap_or("");
            }
            let name: String = words
                .next()
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            match kind {
                "use" => {
                    let tree = rest.trim_start_matches("use").trim_end_matches(';');
                    for (path, name) in use_leaves(tree) {
                        self.reexport(shown, module, &path, &name, hidden);
                    }
                }
                "mod" => {
                    let mut child = module.to_vec();
                    child.push(name.clone());
                    let path = format!("{shown}::{name}");
                    self.add(&path, hidden);
                    match rest.find('{') {
                        Some(open) => {
                            let body = rest[open + 1..rest.len() - 1].to_owned();
                            self.visit(&path, &child, &body, hidden);
                        }
                        None => {
                            if let Some(code) = self.file(&child).map(|s| s.code.clone()) {
                                self.visit(&path, &child, &code, hidden);
                            }
                        }
                    }
                }
                "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" => {
                    self.add(&format!("{shown}::{name}"), hidden);
                }
                _ => {}
            }
        }
    }

    /// A `pub use` of `path` as `name` in `module`: a module is walked, an item recorded.
    fn reexport(&mut self, shown: &str, module: &[String], path: &str, name: &str, hidden: bool) {
        let segments: Vec<String> = path.split("::").map(str::to_owned).collect();
        let resolved: Vec<Vec<String>> = match segments.first().map(String::as_str) {
            Some("crate") => vec![segments[1..].to_vec()],
            Some("self") => vec![[module, &segments[1..]].concat()],
            Some("super") => {
                vec![[&module[..module.len().saturating_sub(1)], &segments[1..]].concat()]
            }
            _ => vec![[module, &segments[..]].concat(), segments.clone()],
        };
        let shown_path = format!("{shown}::{name}");
        match resolved.iter().find_map(|m| self.file(m)) {
            Some(source) => {
                let (child, code) = (source.module.clone(), source.code.clone());
                self.add(&shown_path, hidden);
                self.visit(&shown_path, &child, &code, hidden);
            }
            None => self.add(&shown_path, hidden),
        }
    }

    fn add(&mut self, path: &str, hidden: bool) {
        let mark = if hidden { " (hidden)" } else { "" };
        self.names.insert(format!("{path}{mark}"));
    }

    /// Each public method of a type the surface names, from the inherent `impl` blocks of
    /// every non-test file.
    fn methods(&mut self) {
        let types: BTreeSet<String> = self
            .names
            .iter()
            .filter(|n| !n.ends_with("(hidden)"))
            .filter_map(|n| n.rsplit("::").next())
            .filter(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
            .map(str::to_owned)
            .collect();
        let mut found = BTreeSet::new();
        for source in self.sources.iter().filter(|s| !s.test) {
            for item in items(&source.code) {
                let (rest, _) = without_attributes(item);
                let Some(open) = rest.find('{') else { continue };
                let head = &rest[..open];
                if !head.starts_with("impl") || head.contains(" for ") {
                    continue;
                }
                let head = head.split(" where ").next().unwrap_or(head);
                let ty: String = head
                    .trim_start_matches("impl")
                    .trim_start()
                    .trim_start_matches(|c| {
                        c != ' ' && c != '>' && head.trim_start_matches("impl").starts_with('<')
                    })
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .rfind(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
                    .unwrap_or("")
                    .to_owned();
                if !types.contains(&ty) {
                    continue;
                }
                let body = &rest[open + 1..rest.len() - 1];
                for method in items(body) {
                    let (m, _) = without_attributes(method);
                    let Some(m) = m.strip_prefix("pub ") else {
                        continue;
                    };
                    let m = m.trim_start_matches("const ").trim_start_matches("async ");
                    if let Some(name) = m.strip_prefix("fn ") {
                        let name: String = name
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        found.insert(format!("{ty}::{name} (method)"));
                    }
                }
            }
        }
        self.names.extend(found);
    }
}

/// The crate's public names, sorted: see [`Surface`].
fn public_names() -> Vec<String> {
    let sources = sources();
    let root = sources
        .iter()
        .find(|s| s.module.is_empty())
        .expect("lib.rs");
    let mut surface = Surface {
        sources: &sources,
        names: BTreeSet::new(),
    };
    surface.visit("mcp_replay", &[], &root.code.clone(), false);
    surface.methods();
    surface.names.into_iter().collect()
}

/// The crate's public names are the ones `tests/public_names.txt` lists: what a test
/// author's documentation shows (the items, then each public type's methods), and what the
/// command reaches behind `#[doc(hidden)]` (marked). Growing the surface, or moving a name
/// out of sight, is a visible decision in a diff: after a change on purpose, write the
/// list again with `MCP_REPLAY_PIN_NAMES=1 cargo test -p mcp-replay --test architecture`.
#[test]
fn the_public_names_are_the_pinned_ones() {
    let names = public_names();
    let shown: Vec<&String> = names
        .iter()
        .filter(|n| !n.ends_with("(hidden)") && !n.ends_with("(method)"))
        .collect();
    // A test author's documented surface: a third of the 197 named items the crate had
    // before it was cut (issue 63), at most.
    assert!(
        shown.len() * 3 <= 197,
        "{} documented items: {shown:#?}",
        shown.len()
    );
    let text = names.join("\n") + "\n";
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/public_names.txt");
    if std::env::var_os("MCP_REPLAY_PIN_NAMES").is_some() {
        std::fs::write(&file, &text).expect("tests/public_names.txt written");
        return;
    }
    let pinned = std::fs::read_to_string(&file).unwrap_or_default();
    let old: BTreeSet<&str> = pinned.lines().collect();
    let new: BTreeSet<&str> = text.lines().collect();
    let added: Vec<_> = new.difference(&old).collect();
    let removed: Vec<_> = old.difference(&new).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "the public names changed; if on purpose, pin them again with \
         MCP_REPLAY_PIN_NAMES=1 cargo test -p mcp-replay --test architecture\n\
         added: {added:#?}\nremoved: {removed:#?}"
    );
}
