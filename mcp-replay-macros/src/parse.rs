//! Parsing and validation of `#[mcp_fixture(...)]` and of the function it sits on.
//!
//! Two steps: the arguments are parsed into [`Options`], one match arm per
//! key, each value read as its kind (`dir` a relative path, `timeout_ms` a
//! positive `u64`, ...); then the name (whose hints need `dir`) and the
//! function are validated. Nothing stops at the first problem: every failure
//! becomes its own spanned [`syn::Error`], so one compile shows everything to
//! fix (as rstest does).

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, ExprPath, FnArg, ItemFn, Lit, LitInt, LitStr, Meta, PatType};
use syn::{Signature, Token};

/// One option `#[mcp_fixture]` takes after the name.
struct Knob {
    /// Its key.
    key: &'static str,
    /// How its value is written, e.g. `timeout_ms = 500`; `None` for a flag (`mock_server`).
    write: Option<&'static str>,
}

/// Every option, in the order the attribute's documentation (`mcp_replay::mcp_fixture`)
/// lists them. The parser, its error texts and a docs test (`tests/doc_examples.rs`, which
/// reads this table from this file) take the keys from here: a new option is an entry
/// here, its arm in [`parse_option`] (a flag needs none), its call in `expand.rs`, its
/// method on `harness::Test` and its line in the documentation.
const KNOBS: [Knob; 8] = [
    Knob {
        key: "dir",
        write: Some("dir = \"fixtures\""),
    },
    Knob {
        key: "timeout_ms",
        write: Some("timeout_ms = 500"),
    },
    Knob {
        key: "rules",
        write: Some("rules = my_rules (a `fn() -> mcp_replay::Rules`)"),
    },
    Knob {
        key: "protocol",
        write: Some("protocol = \"2026-07-28\""),
    },
    Knob {
        key: "protocol_check",
        write: Some("protocol_check = \"warn\""),
    },
    Knob {
        key: "mock_server",
        write: None,
    },
    Knob {
        key: "http",
        write: None,
    },
    Knob {
        key: "allow_stray_output",
        write: None,
    },
];

/// "`dir`, `timeout_ms`, ... and `allow_stray_output`": the keys, for error texts.
fn keys() -> String {
    let quoted: Vec<String> = KNOBS.iter().map(|k| format!("`{}`", k.key)).collect();
    let (last, rest) = quoted.split_last().expect("options");
    format!("{} and {last}", rest.join(", "))
}

/// A validated `#[mcp_fixture(...)]` use: everything [`crate::expand`] needs.
pub struct Fixture {
    /// The fixture name literal, e.g. `"lookup_issue"` (without `.jsonl`).
    pub name: LitStr,
    /// The `dir = "..."` literal, if given.
    pub dir: Option<LitStr>,
    /// The `timeout_ms = N` value and the span of its literal, if given.
    pub timeout_ms: Option<(u64, Span)>,
    /// The `rules = path::to::fn` path, if given: a `fn() -> mcp_replay::Rules`.
    pub rules: Option<ExprPath>,
    /// The `protocol = "2026-07-28"` literal, if given.
    pub protocol: Option<LitStr>,
    /// The `protocol_check = "warn"` literal (`deny`, `warn` or `off`), if given.
    pub protocol_check: Option<LitStr>,
    /// The flags given (`mock_server`, `http`, `allow_stray_output`): [`Fixture::has`].
    flags: Vec<&'static str>,
    /// The decorated function, attributes included, exactly as written.
    pub item: ItemFn,
    /// The function's one parameter, the transport (pattern and type).
    /// `None` with `http`: the test takes no parameter and returns the Streamable HTTP
    /// service the fixture replays against.
    pub transport: Option<PatType>,
    /// The second parameter, the client's transport, when the body is the client
    /// (`async fn t(server: Transport, client: Transport)`).
    pub client: Option<PatType>,
}

impl Fixture {
    /// Whether the flag `key` was given: `mock_server` (the fixture plays the server, the
    /// test body is the client), `http`, `allow_stray_output` (lines that are not JSON-RPC
    /// messages are a note, not a finding).
    pub fn has(&self, key: &str) -> bool {
        self.flags.contains(&key)
    }
}

/// An option slot: `None` until the key is given, then `Some(value)`, where
/// the value is `None` if it was refused (so a repeat is still a duplicate).
type Slot<T> = Option<Option<T>>;

/// The attribute's arguments as parsed: the name, then one [`Slot`] per key
/// (`timeout_ms` already checked to be a positive `u64`, `protocol` a date).
#[derive(Default)]
struct Options {
    name: Option<LitStr>,
    dir: Slot<LitStr>,
    timeout_ms: Slot<(u64, Span)>,
    rules: Slot<ExprPath>,
    protocol: Slot<LitStr>,
    protocol_check: Slot<LitStr>,
    /// The flags given, each once.
    flags: Vec<&'static str>,
}

/// One comma-separated attribute argument: a bare literal (the name) or `key = value`.
#[allow(clippy::large_enum_variant)] // A few per attribute, matched by value: no Box.
enum Arg {
    /// A literal, e.g. the name `"lookup_issue"`.
    Lit(Lit),
    /// A path, `key = value` or `key(...)`.
    Meta(Meta),
}

impl Parse for Arg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(Lit) {
            input.parse().map(Arg::Lit)
        } else {
            input.parse().map(Arg::Meta)
        }
    }
}

/// Parses and validates the attribute arguments `args` and the item `item`.
///
/// Returns every problem found, not only the first: the name's, then the
/// options' in the order written, then the function's.
pub fn parse(args: TokenStream, item: TokenStream) -> Result<Fixture, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let options = parse_options(args, &mut errors);
    let dir = options.dir.flatten();
    if let Some(name) = &options.name {
        let folder = dir.as_ref().map_or("fixtures".to_owned(), LitStr::value);
        errors.splice(0..0, check_path(name, Some(&folder)));
    }
    let item = syn::parse2::<ItemFn>(item)
        .map_err(|e| {
            let msg = format!("#[mcp_fixture] goes on an `async fn` test: {e}");
            errors.push(syn::Error::new(e.span(), msg));
        })
        .ok();
    let http = options.flags.contains(&"http");
    let (transport, client) = item
        .as_ref()
        .map(|item| {
            check_attributes(item, &mut errors);
            if http {
                check_http_signature(&item.sig, &mut errors);
                (None, None)
            } else {
                check_signature(&item.sig, &mut errors)
            }
        })
        .unwrap_or((None, None));
    if let (Some(client), true) = (&client, options.flags.contains(&"mock_server")) {
        errors.push(syn::Error::new_spanned(
            client,
            "with `mock_server` the fixture plays the server: the test takes one transport, \
             the client's; remove this parameter",
        ));
    }
    match (options.name, item, transport) {
        (Some(name), Some(item), transport)
            if errors.is_empty() && (http || transport.is_some()) =>
        {
            Ok(Fixture {
                name,
                dir,
                timeout_ms: options.timeout_ms.flatten(),
                rules: options.rules.flatten(),
                protocol: options.protocol.flatten(),
                protocol_check: options.protocol_check.flatten(),
                flags: options.flags,
                item,
                transport,
                client,
            })
        }
        _ => Err(errors),
    }
}

/// Parses `"name", key = value, ...` into [`Options`], recording each problem.
fn parse_options(args: TokenStream, errors: &mut Vec<syn::Error>) -> Options {
    let mut options = Options::default();
    let args = match Punctuated::<Arg, Token![,]>::parse_terminated.parse2(args) {
        Ok(args) => args,
        Err(e) => {
            // A syntax error: nothing to validate, but the function still is.
            errors.push(e);
            return options;
        }
    };
    let mut args = args.into_iter();
    match args.next() {
        Some(first) => parse_first(first, &mut options, errors),
        None => errors.push(syn::Error::new(
            Span::call_site(),
            "#[mcp_fixture] needs the fixture name, the file name without .jsonl: \
             write #[mcp_fixture(\"lookup_issue\")]",
        )),
    }
    for arg in args {
        match arg {
            Arg::Lit(lit) => errors.push(syn::Error::new(
                lit.span(),
                format!(
                    "unexpected literal: the fixture name comes first and only once; \
                     options are written `key = value`, the valid keys are {}",
                    keys()
                ),
            )),
            Arg::Meta(meta) => parse_option(&mut options, &meta, errors),
        }
    }
    options
}

/// The first argument, the name: a string literal. Anything else is
/// reported; an option written first is then still parsed as one.
fn parse_first(arg: Arg, options: &mut Options, errors: &mut Vec<syn::Error>) {
    let error = match arg {
        Arg::Lit(Lit::Str(name)) => return options.name = Some(name),
        Arg::Lit(lit) => syn::Error::new(
            lit.span(),
            "the fixture name must be a string literal, e.g. #[mcp_fixture(\"lookup_issue\")]",
        ),
        Arg::Meta(Meta::Path(path)) if path.get_ident().is_some() => {
            let name = path_text(&path);
            let msg = format!(
                "the fixture name must be a string literal: write #[mcp_fixture(\"{name}\")]"
            );
            syn::Error::new_spanned(path, msg)
        }
        Arg::Meta(meta) => {
            errors.push(syn::Error::new_spanned(
                &meta,
                "the first argument must be the fixture name, a string literal: \
                 write #[mcp_fixture(\"lookup_issue\", ...)]",
            ));
            return parse_option(options, &meta, errors);
        }
    };
    errors.push(error);
}

/// One `key = value` (or `key`) option: a flag, or one arm per key that takes a value.
fn parse_option(options: &mut Options, meta: &Meta, errors: &mut Vec<syn::Error>) {
    let key = meta.path().get_ident().map(ToString::to_string);
    let Some(knob) = KNOBS.iter().find(|k| Some(k.key) == key.as_deref()) else {
        let msg = format!(
            "unknown option `{}`: the valid keys are {}",
            path_text(meta.path()),
            keys()
        );
        return errors.push(syn::Error::new_spanned(meta.path(), msg));
    };
    let Some(write) = knob.write else {
        return flag(&mut options.flags, knob.key, meta, errors);
    };
    match knob.key {
        "dir" => set(&mut options.dir, meta, errors, |errors| {
            let what = "`dir` must be a string literal";
            let dir = value(meta, what, write, str_lit)?;
            errors.extend(check_path(&dir, None));
            Ok(dir)
        }),
        "timeout_ms" => set(&mut options.timeout_ms, meta, errors, |_| {
            let what = "`timeout_ms` must be an integer literal, the limit in milliseconds";
            let ms = value(meta, what, write, |expr| match expr {
                Expr::Lit(ExprLit {
                    lit: Lit::Int(ms), ..
                }) => Some(ms.clone()),
                _ => None,
            })?;
            Ok((check_timeout(&ms)?, ms.span()))
        }),
        "rules" => set(&mut options.rules, meta, errors, |_| {
            let what = "`rules` names a function that returns the rules";
            value(meta, what, write, |expr| match expr {
                Expr::Path(path) if path.qself.is_none() => Some(path.clone()),
                _ => None,
            })
        }),
        "protocol" => set(&mut options.protocol, meta, errors, |_| {
            let what = "`protocol` is an MCP protocol version, a date string";
            value(meta, what, write, |expr| {
                str_lit(expr).filter(|version| is_protocol_version(&version.value()))
            })
        }),
        "protocol_check" => set(&mut options.protocol_check, meta, errors, |_| {
            let what = "`protocol_check` says what a server message that is not valid MCP is: \
                        \"deny\" (a finding), \"warn\" or \"off\"";
            value(meta, what, write, |expr| {
                str_lit(expr).filter(|v| matches!(v.value().as_str(), "deny" | "warn" | "off"))
            })
        }),
        other => errors.push(syn::Error::new_spanned(
            meta,
            format!("`{other}` is in the table of options but has no arm: a bug of mcp-replay"),
        )),
    }
}

/// A flag (`mock_server`): written bare, once.
fn flag(
    flags: &mut Vec<&'static str>,
    key: &'static str,
    meta: &Meta,
    errors: &mut Vec<syn::Error>,
) {
    if flags.contains(&key) {
        let msg = format!("duplicate option `{key}`: give it once");
        errors.push(syn::Error::new_spanned(meta.path(), msg));
    } else if !matches!(meta, Meta::Path(_)) {
        let msg = format!("`{key}` is a flag: write #[mcp_fixture(\"name\", {key})]");
        errors.push(syn::Error::new_spanned(meta, msg));
    } else {
        flags.push(key);
    }
}

/// Fills `slot` with what `read` makes of the option `meta`, or reports
/// "duplicate option" at a second occurrence (whose value is then not read).
fn set<T>(
    slot: &mut Slot<T>,
    meta: &Meta,
    errors: &mut Vec<syn::Error>,
    read: impl FnOnce(&mut Vec<syn::Error>) -> syn::Result<T>,
) {
    if slot.is_some() {
        let key = path_text(meta.path());
        let msg = format!("duplicate option `{key}`: give it once");
        errors.push(syn::Error::new_spanned(meta.path(), msg));
    } else {
        *slot = Some(read(errors).map_err(|e| errors.push(e)).ok());
    }
}

/// The value of `key = value` as `take` reads it; else an error saying what
/// to write: "`key` takes a value" or "{what}", with `example`.
fn value<T>(
    meta: &Meta,
    what: &str,
    example: &str,
    take: impl FnOnce(&Expr) -> Option<T>,
) -> syn::Result<T> {
    let Meta::NameValue(nv) = meta else {
        let key = path_text(meta.path());
        let msg = format!("`{key}` takes a value: write {example}");
        return Err(syn::Error::new_spanned(meta, msg));
    };
    take(&nv.value)
        .ok_or_else(|| syn::Error::new_spanned(&nv.value, format!("{what}: write {example}")))
}

/// A string literal value.
fn str_lit(expr: &Expr) -> Option<LitStr> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.clone()),
        _ => None,
    }
}

/// `YYYY-MM-DD`, the shape of every MCP protocol version.
fn is_protocol_version(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// `timeout_ms = N`: a plain (or `u64`-suffixed) integer, greater than zero.
fn check_timeout(ms: &LitInt) -> syn::Result<u64> {
    let digits = ms.base10_digits();
    let problem = if matches!(ms.suffix(), "" | "u64") {
        match ms.base10_parse::<u64>() {
            Ok(0) => "must be greater than 0",
            Ok(ms) => return Ok(ms),
            Err(_) if digits.starts_with('-') => "must be greater than 0",
            Err(_) => "does not fit in a u64",
        }
    } else {
        let msg =
            format!("`timeout_ms` is a plain number of milliseconds: write timeout_ms = {digits}");
        return Err(syn::Error::new(ms.span(), msg));
    };
    let msg =
        format!("`timeout_ms` {problem}: give the limit in milliseconds, e.g. timeout_ms = 500");
    Err(syn::Error::new(ms.span(), msg))
}

/// Checks the name (`name_in` = `Some(dir)`, its folder) or the `dir` literal
/// (`None`): a relative `/`-separated path that stays inside its base folder.
/// One error per problem, each saying what to write.
fn check_path(lit: &LitStr, name_in: Option<&str>) -> Vec<syn::Error> {
    let value = lit.value();
    let hint = suggest(&value, name_in);
    let [what, base, write, empty, dotdot] = path_words(&value, &hint, name_in);
    let relative = format!("it must be relative to {base}; {write}");
    let jsonl = format!("write the name without .jsonl, e.g. \"{hint}\"");
    let absolute = value.starts_with(['/', '\\']);
    let drive = strip_drive(&value);
    let rest = drive.unwrap_or(&value).trim_start_matches(['/', '\\']);
    let components: Vec<&str> = rest.split(['/', '\\']).collect();
    let has = |component| !rest.is_empty() && components.contains(&component);
    let checks = [
        (value.is_empty(), empty),
        (absolute, format!("{what} is an absolute path: {relative}")),
        (
            drive.is_some(),
            format!("{what} starts with a Windows drive: {relative}"),
        ),
        (
            rest.contains('\\'),
            format!("{what} contains `\\`: separate folders with `/`; {write}"),
        ),
        (has(".."), format!("{what} has a `..` component: {dotdot}")),
        (
            has(""),
            format!("{what} has an empty path component (`//` or a trailing `/`); {write}"),
        ),
        (
            name_in.is_some() && value.ends_with(".jsonl"),
            format!("{what} ends with .jsonl: {jsonl}"),
        ),
    ];
    let errors = checks.into_iter().filter(|(failed, _)| *failed);
    errors
        .map(|(_, msg)| syn::Error::new(lit.span(), msg))
        .collect()
}

/// How [`check_path`] speaks of `value`, a name (`Some(dir)`) or `dir` (`None`):
/// what it is, what it is relative to, what to write instead (`hint`), and
/// what to say when it is empty and when it has a `..` component.
fn path_words(value: &str, hint: &str, name_in: Option<&str>) -> [String; 5] {
    match name_in {
        Some(dir) => [
            format!("the fixture name `{value}`"),
            format!("the fixture folder \"{dir}\""),
            format!("write e.g. \"{hint}\""),
            "the fixture name is empty: write the fixture's file name without .jsonl, \
             e.g. #[mcp_fixture(\"lookup_issue\")]"
                .to_owned(),
            format!(
                "fixtures must stay inside the fixture folder; write e.g. \"{hint}\", \
                 or pick another folder with dir = \"...\""
            ),
        ],
        None => [
            format!("`dir = \"{value}\"`"),
            "the crate root (CARGO_MANIFEST_DIR)".to_owned(),
            format!("write e.g. dir = \"{hint}\""),
            "`dir` is empty: write a folder relative to the crate root, \
             e.g. dir = \"fixtures\" (or \".\" for the crate root itself)"
                .to_owned(),
            format!("the fixture folder must be inside the crate; write e.g. dir = \"{hint}\""),
        ],
    }
}

/// `C:rest` → `Some("rest")`.
fn strip_drive(value: &str) -> Option<&str> {
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(drive), Some(':')) if drive.is_ascii_alphabetic() => Some(chars.as_str()),
        _ => None,
    }
}

/// The closest valid path to `value`, for "write e.g. ..." hints (see [`check_path`]).
///
/// For a name that spells out the fixture folder (`/abs/fixtures/a/b` or
/// `fixtures/a/b`), that is the part below it (`a/b`).
fn suggest(value: &str, name_in: Option<&str>) -> String {
    let rest = strip_drive(value).unwrap_or(value);
    let rest = match name_in {
        Some(_) => rest.strip_suffix(".jsonl").unwrap_or(rest),
        None => rest,
    };
    let mut components: Vec<&str> = rest
        .split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != "..")
        .collect();
    let folder = name_in.and_then(|dir| dir.rsplit(['/', '\\']).find(|c| !c.is_empty()));
    let below = folder.and_then(|folder| components.iter().rposition(|c| *c == folder));
    if let Some(at) = below.filter(|at| at + 1 < components.len()) {
        components.drain(..=at);
    }
    match components.join("/") {
        empty if empty.is_empty() => name_in.map_or("fixtures", |_| "lookup_issue").to_owned(),
        path => path,
    }
}

/// Attribute rules: `#[mcp_fixture]` once, above a test attribute, on an `async fn`.
fn check_attributes(item: &ItemFn, errors: &mut Vec<syn::Error>) {
    let attrs = &item.attrs;
    if let Some(again) = attrs.iter().find(|a| last_segment_is(a, "mcp_fixture")) {
        errors.push(syn::Error::new_spanned(
            again,
            "#[mcp_fixture] is given twice: a test replays one fixture",
        ));
    }
    // `#[tokio::test]` written above us has already expanded: the `async` is
    // gone and its `#[::core::prelude::v1::test]` is among our attributes.
    if let Some(expanded) = attrs.iter().find(|a| is_expanded_test(a)) {
        return errors.push(syn::Error::new_spanned(
            expanded,
            "place #[mcp_fixture] above #[tokio::test]: attributes expand top to bottom, \
             and #[mcp_fixture] must see the `async fn` before #[tokio::test] rewrites it",
        ));
    }
    let test_attr = attrs.iter().find(|a| last_segment_is(a, "test"));
    if item.sig.asyncness.is_none() {
        errors.push(not_async(&item.sig, test_attr));
    }
    if test_attr.is_none() {
        errors.push(syn::Error::new(
            Span::call_site(),
            "add #[tokio::test] below #[mcp_fixture(...)]: #[mcp_fixture] rewrites \
             the function, a test attribute below it makes it a test",
        ));
    }
}

/// "needs an `async fn`", at `fn`; under a plain `#[test]`, with how to fix that.
fn not_async(sig: &Signature, test_attr: Option<&Attribute>) -> syn::Error {
    let hint = match test_attr {
        Some(a) if a.path().is_ident("test") => {
            "; use #[tokio::test] instead of #[test], or if your async test attribute \
             is written above #[mcp_fixture], place #[mcp_fixture] above it: \
             attributes expand top to bottom"
        }
        _ => "",
    };
    let ident = &sig.ident;
    let msg = format!(
        "#[mcp_fixture] needs an `async fn`: write `async fn {ident}(transport: \
         mcp_replay::Transport)`{hint}"
    );
    syn::Error::new_spanned(sig.fn_token, msg)
}

/// Signature rules: not generic, one parameter (the transport) or two (the server's and
/// the client's), not `self`; returned.
fn check_signature(
    sig: &Signature,
    errors: &mut Vec<syn::Error>,
) -> (Option<PatType>, Option<PatType>) {
    let generic = "#[mcp_fixture] tests cannot be generic: remove";
    if !sig.generics.params.is_empty() {
        let msg = format!("{generic} the generic parameters");
        errors.push(syn::Error::new_spanned(&sig.generics, msg));
    } else if let Some(where_clause) = &sig.generics.where_clause {
        let msg = format!("{generic} the `where` clause");
        errors.push(syn::Error::new_spanned(where_clause, msg));
    }
    let takes = format!(
        "#[mcp_fixture] tests take the transport, `async fn {0}(transport: \
         mcp_replay::Transport)`, or two, the server's and the client's, when the body is the \
         client: `async fn {0}(server: Transport, client: Transport)`",
        sig.ident
    );
    for input in &sig.inputs {
        if let FnArg::Receiver(receiver) = input {
            let msg = format!("#[mcp_fixture] tests are free functions, remove `self`; {takes}");
            errors.push(syn::Error::new_spanned(receiver, msg));
        }
    }
    let mut inputs = sig.inputs.iter();
    let first = inputs.next();
    let second = inputs.next();
    let extra: TokenStream = inputs.map(|input| quote::quote!(#input)).collect();
    if first.is_none() {
        let msg = format!("missing the transport parameter; {takes}");
        errors.push(syn::Error::new(sig.paren_token.span.join(), msg));
    } else if !extra.is_empty() {
        let msg = format!("remove the extra parameters; {takes}");
        errors.push(syn::Error::new_spanned(extra, msg));
    }
    let typed = |input: Option<&FnArg>| match input {
        Some(FnArg::Typed(t)) => Some(t.clone()),
        _ => None,
    };
    (typed(first), typed(second))
}

/// With `http`: no parameter, and a return type (the service to replay against).
fn check_http_signature(sig: &Signature, errors: &mut Vec<syn::Error>) {
    let shape = format!(
        "#[mcp_fixture(.., http)] tests take no parameter and return the Streamable HTTP service: \
         `async fn {}() -> StreamableHttpService<..>`",
        sig.ident
    );
    if !sig.inputs.is_empty() {
        let inputs = &sig.inputs;
        errors.push(syn::Error::new_spanned(
            inputs,
            format!("remove the parameters; {shape}"),
        ));
    }
    if matches!(sig.output, syn::ReturnType::Default) {
        let msg = format!("missing the return type; {shape}");
        errors.push(syn::Error::new(sig.paren_token.span.join(), msg));
    }
}

/// Whether `attr`'s path ends in `name`, e.g. `#[tokio::test(...)]` for `test`.
fn last_segment_is(attr: &Attribute, name: &str) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == name)
}

/// Whether `attr` is what an already-expanded test attribute leaves behind:
/// `#[::core::prelude::v1::test]` (tokio, and most async test macros),
/// `#[std::prelude::*::test]`, or rustc's own `#[rustc_test_marker]`.
fn is_expanded_test(attr: &Attribute) -> bool {
    let path = path_text(attr.path());
    let segments: Vec<&str> = path.trim_start_matches("::").split("::").collect();
    matches!(
        segments.as_slice(),
        ["core" | "std", "prelude", _, "test"] | ["rustc_test_marker"]
    )
}

/// `a::b` as written, for messages.
fn path_text(path: &syn::Path) -> String {
    quote::quote!(#path).to_string().replace(' ', "")
}

#[cfg(test)]
mod should {
    use super::*;
    use quote::quote;

    fn item() -> TokenStream {
        quote! { #[tokio::test] async fn lookup_issue(transport: Transport) {} }
    }

    fn ok(args: TokenStream, item: TokenStream) -> Fixture {
        parse(args, item).unwrap_or_else(|e| panic!("unexpected errors: {:?}", messages(&e)))
    }

    fn messages(errors: &[syn::Error]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    fn errors(args: TokenStream, item: TokenStream) -> Vec<String> {
        match parse(args, item) {
            Ok(_) => panic!("expected errors, got a fixture"),
            Err(errors) => messages(&errors),
        }
    }

    /// Asserts that `errors` are one message per needle, in order.
    fn assert_messages(errors: &[String], needles: &[&str]) {
        assert_eq!(errors.len(), needles.len(), "{errors:#?}");
        for (error, needle) in errors.iter().zip(needles) {
            assert!(error.contains(needle), "{error:?} lacks {needle:?}");
        }
    }

    #[test]
    fn accept_a_name_alone_and_any_test_attribute() {
        let fixture = ok(quote!("lookup_issue"), item());
        assert_eq!(fixture.name.value(), "lookup_issue");
        assert!(
            fixture.dir.is_none() && fixture.timeout_ms.is_none() && !fixture.has("mock_server")
        );
        assert!(fixture.rules.is_none() && fixture.protocol.is_none());
        let transport = &fixture.transport;
        assert_eq!(quote!(#transport).to_string(), "transport : Transport");
        ok(
            quote!("a..b"),
            quote! { #[test_log::test] async fn a(t: T) {} },
        );
        ok(
            quote!("a"),
            quote! { #[tokio::test(flavor = "x")] pub async fn a(mut t: T) -> R {} },
        );
    }

    #[test]
    fn accept_every_option() {
        let fixture = ok(
            quote! { "issues/lookup", dir = "tests/fixtures", timeout_ms = 20u64,
            rules = crate::rules::loose, protocol = "2026-07-28", mock_server,
            allow_stray_output, },
            item(),
        );
        let value = |lit: Option<LitStr>| lit.map(|lit| lit.value()).unwrap_or_default();
        assert!(fixture.has("mock_server"));
        assert!(fixture.has("allow_stray_output"));
        assert_eq!(fixture.name.value(), "issues/lookup");
        assert_eq!(value(fixture.dir), "tests/fixtures");
        assert_eq!(fixture.timeout_ms.map(|(ms, _)| ms), Some(20));
        let rules = fixture.rules.expect("rules");
        assert_eq!(quote!(#rules).to_string(), "crate :: rules :: loose");
        assert_eq!(value(fixture.protocol), "2026-07-28");
    }

    /// `refused!(args: (ARGS) => "needle", ...)` (on [`item`]) or `refused!(fns:
    /// (ITEM) => "needle", ...)` (with the name `"a"`): each gives exactly one
    /// error, which contains its needle. A macro so that the tables stay tables.
    macro_rules! refused {
        (args: $(($($args:tt)*) => $needle:literal,)*) => {
            $(assert_messages(&errors(quote!($($args)*), item()), &[$needle]);)*
        };
        (fns: $(($($item:tt)*) => $needle:literal,)*) => {
            $(assert_messages(&errors(quote!("a"), quote!($($item)*)), &[$needle]);)*
        };
    }

    /// The argument problems that tests/ui does not cover.
    #[test]
    fn refuse_each_bad_argument_with_one_message() {
        refused! { args:
            (42) => "the fixture name must be a string literal, e.g.",
            (dir = "x") => "the first argument must be the fixture name",
            ("a", "b") => "the fixture name comes first and only once",
            ("a/../b") => "has a `..` component",
            ("/abs/x") => "write e.g. \"abs/x\"",
            ("/srv/golden/lookup", dir = "tests/golden")
                => "relative to the fixture folder \"tests/golden\"; write e.g. \"lookup\"",
            ("C:/x") => "starts with a Windows drive",
            ("\\x") => "is an absolute path",
            ("a\\b") => "separate folders with `/`; write e.g. \"a/b\"",
            ("a//b") => "empty path component",
            ("a/") => "empty path component",
            ("a", a::dir = "x") => "unknown option `a::dir`: the valid keys are `dir`, `timeout_ms`",
            ("a", timeout_ms) => "`timeout_ms` takes a value: write timeout_ms = 500",
            ("a", timeout_ms = 1.5) => "`timeout_ms` must be an integer literal",
            // rustc hands `-1` over as `-` and `1`; proc-macro2 outside rustc as
            // one literal. Either way it is refused.
            ("a", timeout_ms = -1) => "`timeout_ms` must be",
            ("a", timeout_ms = 0) => "must be greater than 0",
            ("a", timeout_ms = 500ms) => "a plain number of milliseconds: write timeout_ms = 500",
            ("a", timeout_ms = 99999999999999999999999) => "does not fit in a u64",
            ("a", dir = 5) => "`dir` must be a string literal",
            ("a", dir = "/tmp") => "is an absolute path",
            ("a", dir = "../shared") => "the fixture folder must be inside the crate",
            ("a", dir = "") => "`dir` is empty",
            ("a", dir(x)) => "`dir` takes a value: write dir = \"fixtures\"",
            ("a", protocol = "modern") => "a date string: write protocol = \"2026-07-28\"",
            ("a", mock_server = true) => "`mock_server` is a flag",
            ("a", allow_stray_output = true) => "`allow_stray_output` is a flag",
            ("a", rules = "loose") => "`rules` names a function that returns the rules",
            ("a", rules = make(1)) => "`rules` names a function",
            ("a", dir =) => "expected",
        }
    }

    /// The function problems that tests/ui does not cover.
    #[test]
    fn refuse_each_bad_function_with_one_message() {
        refused! { fns:
            (#[test] fn a(t: T) {}) => "use #[tokio::test] instead of #[test]",
            (#[::core::prelude::v1::test] fn a(t: T) {}) => "place #[mcp_fixture] above",
            (#[rustc_test_marker] fn a(t: T) {}) => "place #[mcp_fixture] above",
            (#[tokio::test] async fn a(self) {}) => "are free functions, remove `self`",
            (#[tokio::test] async fn a<T>(t: T) {}) => "remove the generic parameters",
            (#[tokio::test] async fn a(t: T) where u8: Copy {}) => "remove the `where` clause",
            (#[mcp_fixture("b")] #[tokio::test] async fn a(t: T) {}) => "given twice",
            (struct A;) => "#[mcp_fixture] goes on an `async fn` test",
        }
    }

    #[test]
    fn report_the_name_then_the_options_as_written_then_the_function() {
        let args = quote!("../a.jsonl", timeout = 1, dir = "/x");
        let errors = errors(args, quote! { fn a() {} });
        let expected = [
            "`..`",
            ".jsonl",
            "unknown option",
            "absolute",
            "async",
            "add #[",
            "missing",
        ];
        assert_messages(&errors, &expected);
    }

    #[test]
    fn still_parse_an_option_written_first() {
        let errors = errors(quote!(dir = 5), item());
        let expected = ["must be the fixture name", "`dir` must be a string"];
        assert_messages(&errors, &expected);
    }

    #[test]
    fn report_each_repeat_of_an_option_even_after_a_refused_value() {
        let errors = errors(quote!("a", dir = 5, dir = "x", dir = "y"), item());
        let duplicate = "duplicate option `dir`: give it once";
        let expected = ["`dir` must be a string literal", duplicate, duplicate];
        assert_messages(&errors, &expected);
    }
}
