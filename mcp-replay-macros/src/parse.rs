//! Parsing and validation of `#[mcp_fixture(...)]` and of the function it sits on.
//!
//! Nothing here stops at the first problem: every check runs and every
//! failure becomes its own spanned [`syn::Error`], so one compile shows the
//! user everything to fix (as rstest does).

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, FnArg, ItemFn, Lit, LitInt, LitStr, Meta, PatType, Token};

/// The option keys `#[mcp_fixture]` accepts after the name.
const KEYS: &str = "`dir`, `timeout_ms`, `rules`, `protocol` and `mock_server`";

/// A validated `#[mcp_fixture(...)]` use: everything [`crate::expand`] needs.
pub struct Fixture {
    /// The fixture name literal, e.g. `"lookup_issue"` (without `.jsonl`).
    pub name: LitStr,
    /// The `dir = "..."` literal, if given.
    pub dir: Option<LitStr>,
    /// The `timeout_ms = N` value and the span of its literal, if given.
    pub timeout_ms: Option<(u64, Span)>,
    /// The `rules = path::to::fn` path, if given: a `fn() -> mcp_replay::Rules`.
    pub rules: Option<syn::ExprPath>,
    /// The `protocol = "2026-07-28"` literal, if given.
    pub protocol: Option<LitStr>,
    /// `mock_server`: the fixture plays the server, the test body is the client.
    pub mock_server: bool,
    /// The decorated function, attributes included, exactly as written.
    pub item: ItemFn,
    /// The function's one parameter, the transport (pattern and type).
    pub transport: PatType,
}

/// The validated attribute arguments.
#[derive(Default)]
struct Args {
    name: Option<LitStr>,
    dir: Option<LitStr>,
    timeout_ms: Option<(u64, Span)>,
    rules: Option<syn::ExprPath>,
    protocol: Option<LitStr>,
    mock_server: bool,
}

/// One comma-separated attribute argument: a bare literal (the name) or `key = value`.
enum Arg {
    Lit(Lit),
    Meta(Box<Meta>),
}

impl Parse for Arg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(Lit) {
            input.parse().map(Arg::Lit)
        } else {
            input.parse().map(|meta| Arg::Meta(Box::new(meta)))
        }
    }
}

/// Parses and validates the attribute arguments `args` and the item `item`.
///
/// Returns every problem found, not only the first.
pub fn parse(args: TokenStream, item: TokenStream) -> Result<Fixture, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let args = parse_args(args, &mut errors);
    let item = match syn::parse2::<ItemFn>(item) {
        Ok(item) => Some(item),
        Err(e) => {
            errors.push(syn::Error::new(
                e.span(),
                format!("#[mcp_fixture] goes on an `async fn` test: {e}"),
            ));
            None
        }
    };
    let transport = item.as_ref().and_then(|item| check_fn(item, &mut errors));
    match (args.name, item, transport) {
        (Some(name), Some(item), Some(transport)) if errors.is_empty() => Ok(Fixture {
            name,
            dir: args.dir,
            timeout_ms: args.timeout_ms,
            rules: args.rules,
            protocol: args.protocol,
            mock_server: args.mock_server,
            item,
            transport,
        }),
        _ => Err(errors),
    }
}

/// Parses `"name", key = value, ...`, recording each problem in `errors`.
fn parse_args(args: TokenStream, errors: &mut Vec<syn::Error>) -> Args {
    let mut out = Args::default();
    let parsed = match Punctuated::<Arg, Token![,]>::parse_terminated.parse2(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            // A syntax error: nothing to validate, but the function still is.
            errors.push(e);
            return out;
        }
    };
    let mut parsed = parsed.into_iter().peekable();
    let mut name_errors_at = None;
    match parsed.peek() {
        Some(Arg::Lit(Lit::Str(name))) => {
            // Checked once `dir` is known, which the hints mention.
            out.name = Some(name.clone());
            name_errors_at = Some(errors.len());
            parsed.next();
        }
        Some(Arg::Lit(lit)) => {
            errors.push(syn::Error::new(
                lit.span(),
                "the fixture name must be a string literal, e.g. #[mcp_fixture(\"lookup_issue\")]",
            ));
            parsed.next();
        }
        Some(Arg::Meta(meta)) => match (&**meta, meta.path().get_ident()) {
            (Meta::Path(path), Some(ident)) => {
                errors.push(syn::Error::new_spanned(
                    path,
                    format!(
                        "the fixture name must be a string literal: \
                         write #[mcp_fixture(\"{ident}\")]"
                    ),
                ));
                parsed.next();
            }
            _ => errors.push(syn::Error::new_spanned(
                meta,
                "the first argument must be the fixture name, a string literal: \
                 write #[mcp_fixture(\"lookup_issue\", ...)]",
            )),
        },
        None => errors.push(syn::Error::new(
            Span::call_site(),
            "#[mcp_fixture] needs the fixture name, the file name without .jsonl: \
             write #[mcp_fixture(\"lookup_issue\")]",
        )),
    }
    let mut seen_dir = false;
    let mut seen_timeout = false;
    let mut seen_rules = false;
    let mut seen_protocol = false;
    let mut seen_mock = false;
    for arg in parsed {
        let meta = match arg {
            Arg::Lit(lit) => {
                errors.push(syn::Error::new(
                    lit.span(),
                    format!(
                        "unexpected literal: the fixture name comes first and only once; \
                         options are written `key = value`, the valid keys are {KEYS}"
                    ),
                ));
                continue;
            }
            Arg::Meta(meta) => *meta,
        };
        let key = meta.path().get_ident().map(ToString::to_string);
        let seen = match key.as_deref() {
            Some("dir") => &mut seen_dir,
            Some("timeout_ms") => &mut seen_timeout,
            Some("rules") => &mut seen_rules,
            Some("protocol") => &mut seen_protocol,
            Some("mock_server") => &mut seen_mock,
            _ => {
                errors.push(syn::Error::new_spanned(
                    meta.path(),
                    format!(
                        "unknown option `{}`: the valid keys are {KEYS}",
                        path_text(meta.path())
                    ),
                ));
                continue;
            }
        };
        let key = key.unwrap_or_default();
        if std::mem::replace(seen, true) {
            errors.push(syn::Error::new_spanned(
                meta.path(),
                format!("duplicate option `{key}`: give it once"),
            ));
            continue;
        }
        if key == "mock_server" {
            match &meta {
                Meta::Path(_) => out.mock_server = true,
                other => errors.push(syn::Error::new_spanned(
                    other,
                    "`mock_server` is a flag: write #[mcp_fixture(\"name\", mock_server)]",
                )),
            }
            continue;
        }
        let example = match key.as_str() {
            "dir" => "dir = \"fixtures\"",
            "rules" => "rules = my_rules (a `fn() -> mcp_replay::Rules`)",
            "protocol" => "protocol = \"2026-07-28\"",
            _ => "timeout_ms = 500",
        };
        let value = match &meta {
            Meta::NameValue(nv) => &nv.value,
            _ => {
                errors.push(syn::Error::new_spanned(
                    &meta,
                    format!("`{key}` takes a value: write {example}"),
                ));
                continue;
            }
        };
        if key == "protocol" {
            match value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(version),
                    ..
                }) if is_protocol_version(&version.value()) => out.protocol = Some(version.clone()),
                other => errors.push(syn::Error::new_spanned(
                    other,
                    format!(
                        "`protocol` is an MCP protocol version, a date string: write {example}"
                    ),
                )),
            }
        } else if key == "rules" {
            match value {
                Expr::Path(path) if path.qself.is_none() => out.rules = Some(path.clone()),
                other => errors.push(syn::Error::new_spanned(
                    other,
                    format!("`rules` names a function that returns the rules: write {example}"),
                )),
            }
        } else if key == "dir" {
            match value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(dir), ..
                }) => {
                    errors.extend(check_path(dir, PathKind::Dir));
                    out.dir = Some(dir.clone());
                }
                other => errors.push(syn::Error::new_spanned(
                    other,
                    format!("`dir` must be a string literal: write {example}"),
                )),
            }
        } else {
            match value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Int(ms), ..
                }) => match check_timeout(ms) {
                    Ok(v) => out.timeout_ms = Some((v, ms.span())),
                    Err(e) => errors.push(e),
                },
                other => errors.push(syn::Error::new_spanned(
                    other,
                    format!(
                        "`timeout_ms` must be an integer literal, \
                         the limit in milliseconds: write {example}"
                    ),
                )),
            }
        }
    }
    if let (Some(at), Some(name)) = (name_errors_at, &out.name) {
        let dir = out
            .dir
            .as_ref()
            .map_or_else(|| "fixtures".to_owned(), LitStr::value);
        let name_errors = check_path(name, PathKind::Name { dir: &dir });
        errors.splice(at..at, name_errors);
    }
    out
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
    if !matches!(ms.suffix(), "" | "u64") {
        return Err(syn::Error::new(
            ms.span(),
            format!(
                "`timeout_ms` is a plain number of milliseconds: write timeout_ms = {}",
                ms.base10_digits()
            ),
        ));
    }
    let positive = "`timeout_ms` must be greater than 0: give the limit in milliseconds, \
                    e.g. timeout_ms = 500";
    if ms.base10_digits().starts_with('-') {
        return Err(syn::Error::new(ms.span(), positive));
    }
    match ms.base10_parse::<u64>() {
        Ok(0) => Err(syn::Error::new(ms.span(), positive)),
        Ok(v) => Ok(v),
        Err(_) => Err(syn::Error::new(
            ms.span(),
            "`timeout_ms` does not fit in a u64: give the limit in milliseconds, \
             e.g. timeout_ms = 500",
        )),
    }
}

/// Which path a string literal holds, for [`check_path`]'s messages.
#[derive(Clone, Copy)]
enum PathKind<'a> {
    /// The fixture name, relative to the fixture folder `dir`, without `.jsonl`.
    Name {
        /// The fixture folder, as given by `dir` (default `"fixtures"`).
        dir: &'a str,
    },
    /// The `dir` option, relative to the crate root.
    Dir,
}

/// Checks a name or `dir` literal: a relative `/`-separated path that stays
/// inside its base folder. One error per problem, each saying what to write.
fn check_path(lit: &LitStr, kind: PathKind<'_>) -> Vec<syn::Error> {
    let value = lit.value();
    let (what, base, fallback) = match kind {
        PathKind::Name { dir } => (
            format!("the fixture name `{value}`"),
            format!("the fixture folder \"{dir}\""),
            "lookup_issue",
        ),
        PathKind::Dir => (
            format!("`dir = \"{value}\"`"),
            "the crate root (CARGO_MANIFEST_DIR)".to_owned(),
            "fixtures",
        ),
    };
    let err = |msg: String| syn::Error::new(lit.span(), msg);
    if value.is_empty() {
        return vec![err(match kind {
            PathKind::Name { .. } => "the fixture name is empty: write the fixture's file name \
                               without .jsonl, e.g. #[mcp_fixture(\"lookup_issue\")]"
                .to_owned(),
            PathKind::Dir => "`dir` is empty: write a folder relative to the crate root, \
                              e.g. dir = \"fixtures\" (or \".\" for the crate root itself)"
                .to_owned(),
        })];
    }

    let suggestion = {
        let cleaned = suggest(&value, kind);
        if cleaned.is_empty() {
            fallback.to_owned()
        } else {
            cleaned
        }
    };
    let write = match kind {
        PathKind::Name { .. } => format!("write e.g. \"{suggestion}\""),
        PathKind::Dir => format!("write e.g. dir = \"{suggestion}\""),
    };

    let mut errors = Vec::new();
    let mut rest = value.as_str();
    if rest.starts_with(['/', '\\']) {
        errors.push(err(format!(
            "{what} is an absolute path: it must be relative to {base}; {write}"
        )));
        rest = rest.trim_start_matches(['/', '\\']);
    } else if let Some(after) = strip_drive(rest) {
        errors.push(err(format!(
            "{what} starts with a Windows drive: it must be relative to {base}; {write}"
        )));
        rest = after.trim_start_matches(['/', '\\']);
    }
    if rest.contains('\\') {
        errors.push(err(format!(
            "{what} contains `\\`: separate folders with `/`; {write}"
        )));
    }
    if !rest.is_empty() {
        let components: Vec<&str> = rest.split(['/', '\\']).collect();
        if components.contains(&"..") {
            errors.push(err(match kind {
                PathKind::Name { .. } => format!(
                    "{what} has a `..` component: fixtures must stay inside the fixture \
                     folder; {write}, or pick another folder with dir = \"...\""
                ),
                PathKind::Dir => format!(
                    "{what} has a `..` component: the fixture folder must be inside \
                     the crate; {write}"
                ),
            }));
        }
        if components.contains(&"") {
            errors.push(err(format!(
                "{what} has an empty path component (`//` or a trailing `/`); {write}"
            )));
        }
    }
    if matches!(kind, PathKind::Name { .. }) && value.ends_with(".jsonl") {
        errors.push(err(format!(
            "{what} ends with .jsonl: write the name without .jsonl, e.g. \"{suggestion}\""
        )));
    }
    errors
}

/// `C:rest` → `Some("rest")`.
fn strip_drive(value: &str) -> Option<&str> {
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(drive), Some(':')) if drive.is_ascii_alphabetic() => Some(chars.as_str()),
        _ => None,
    }
}

/// The closest valid path to `value`, for "write e.g. ..." hints.
///
/// For a name that spells out the fixture folder (`/abs/fixtures/a/b` or
/// `fixtures/a/b`), that is the part below it (`a/b`).
fn suggest(value: &str, kind: PathKind<'_>) -> String {
    let rest = strip_drive(value).unwrap_or(value);
    let rest = match kind {
        PathKind::Name { .. } => rest.strip_suffix(".jsonl").unwrap_or(rest),
        PathKind::Dir => rest,
    };
    let mut components: Vec<&str> = rest
        .split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != "..")
        .collect();
    if let PathKind::Name { dir } = kind {
        let folder = dir.rsplit(['/', '\\']).find(|c| !c.is_empty());
        let below = folder.and_then(|folder| components.iter().rposition(|c| *c == folder));
        if let Some(at) = below.filter(|at| at + 1 < components.len()) {
            components.drain(..=at);
        }
    }
    components.join("/")
}

/// Validates the function; returns its transport parameter when there is exactly one.
fn check_fn(item: &ItemFn, errors: &mut Vec<syn::Error>) -> Option<PatType> {
    let sig = &item.sig;

    if let Some(again) = item
        .attrs
        .iter()
        .find(|a| last_segment_is(a, "mcp_fixture"))
    {
        errors.push(syn::Error::new_spanned(
            again,
            "#[mcp_fixture] is given twice: a test replays one fixture",
        ));
    }

    // `#[tokio::test]` written above us has already expanded: the `async` is
    // gone and its `#[::core::prelude::v1::test]` is among our attributes.
    if let Some(expanded) = item.attrs.iter().find(|a| is_expanded_test(a)) {
        errors.push(syn::Error::new_spanned(
            expanded,
            "place #[mcp_fixture] above #[tokio::test]: attributes expand top to bottom, \
             and #[mcp_fixture] must see the `async fn` before #[tokio::test] rewrites it",
        ));
    } else {
        let test_attr = item.attrs.iter().find(|a| last_segment_is(a, "test"));
        if sig.asyncness.is_none() {
            let hint = match test_attr {
                Some(a) if a.path().is_ident("test") => {
                    "; use #[tokio::test] instead of #[test], or if your async test attribute \
                     is written above #[mcp_fixture], place #[mcp_fixture] above it: \
                     attributes expand top to bottom"
                }
                _ => "",
            };
            errors.push(syn::Error::new_spanned(
                sig.fn_token,
                format!(
                    "#[mcp_fixture] needs an `async fn`: write `async fn {}(transport: \
                     mcp_replay::Transport)`{hint}",
                    sig.ident
                ),
            ));
        }
        if test_attr.is_none() {
            errors.push(syn::Error::new(
                Span::call_site(),
                "add #[tokio::test] below #[mcp_fixture(...)]: #[mcp_fixture] rewrites \
                 the function, a test attribute below it makes it a test",
            ));
        }
    }

    if !sig.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            "#[mcp_fixture] tests cannot be generic: remove the generic parameters",
        ));
    } else if let Some(where_clause) = &sig.generics.where_clause {
        errors.push(syn::Error::new_spanned(
            where_clause,
            "#[mcp_fixture] tests cannot be generic: remove the `where` clause",
        ));
    }

    let takes = format!(
        "#[mcp_fixture] tests take exactly one parameter, the transport: \
         `async fn {}(transport: mcp_replay::Transport)`",
        sig.ident
    );
    for input in &sig.inputs {
        if let FnArg::Receiver(receiver) = input {
            errors.push(syn::Error::new_spanned(
                receiver,
                format!("#[mcp_fixture] tests are free functions, remove `self`; {takes}"),
            ));
        }
    }
    let mut inputs = sig.inputs.iter();
    let first = inputs.next();
    let extra: TokenStream = inputs.map(|input| quote::quote!(#input)).collect();
    if first.is_none() {
        errors.push(syn::Error::new(
            sig.paren_token.span.join(),
            format!("missing the transport parameter; {takes}"),
        ));
    } else if !extra.is_empty() {
        errors.push(syn::Error::new_spanned(
            extra,
            format!("remove the extra parameters; {takes}"),
        ));
    }
    match first {
        Some(FnArg::Typed(transport)) => Some(transport.clone()),
        _ => None,
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
    let segments: Vec<String> = attr
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segments.as_slice() {
        [krate, prelude, _, test] => {
            (krate == "core" || krate == "std") && prelude == "prelude" && test == "test"
        }
        [marker] => marker == "rustc_test_marker",
        _ => false,
    }
}

/// `a::b` as written, for messages.
fn path_text(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let lead = if path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    format!("{lead}{}", segments.join("::"))
}

#[cfg(test)]
mod should {
    use super::*;
    use quote::quote;

    fn item() -> TokenStream {
        quote! {
            #[tokio::test]
            async fn lookup_issue(transport: Transport) {}
        }
    }

    fn ok(args: TokenStream, item: TokenStream) -> Fixture {
        match parse(args, item) {
            Ok(fixture) => fixture,
            Err(errors) => panic!("unexpected errors: {:?}", messages(errors)),
        }
    }

    fn messages(errors: Vec<syn::Error>) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    fn errors(args: TokenStream, item: TokenStream) -> Vec<String> {
        match parse(args, item) {
            Ok(_) => panic!("expected errors, got a fixture"),
            Err(errors) => messages(errors),
        }
    }

    fn name_errors(name: &str) -> Vec<String> {
        errors(quote!(#name), item())
    }

    fn assert_one(errors: &[String], needle: &str) {
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert!(
            errors[0].contains(needle),
            "{:?} lacks {needle:?}",
            errors[0]
        );
    }

    #[test]
    fn accept_a_name_with_default_options() {
        let fixture = ok(quote!("lookup_issue"), item());
        assert_eq!(fixture.name.value(), "lookup_issue");
        assert!(fixture.dir.is_none());
        assert!(fixture.timeout_ms.is_none());
        let transport = &fixture.transport;
        assert_eq!(quote!(#transport).to_string(), "transport : Transport");
    }

    #[test]
    fn accept_a_subfolder_name_and_every_option() {
        let fixture = ok(
            quote!("issues/lookup", dir = "tests/fixtures", timeout_ms = 500,),
            item(),
        );
        assert_eq!(fixture.name.value(), "issues/lookup");
        assert_eq!(
            fixture.dir.map(|d| d.value()).as_deref(),
            Some("tests/fixtures")
        );
        assert_eq!(fixture.timeout_ms.map(|(ms, _)| ms), Some(500));
    }

    #[test]
    fn accept_a_protocol_version_and_reject_other_strings() {
        let fixture = ok(quote!("a", protocol = "2026-07-28"), item());
        assert_eq!(
            fixture.protocol.map(|p| p.value()).as_deref(),
            Some("2026-07-28")
        );
        assert_one(
            &errors(quote!("a", protocol = "modern"), item()),
            "`protocol` is an MCP protocol version, a date string: write protocol = \"2026-07-28\"",
        );
    }

    #[test]
    fn accept_the_mock_server_flag_and_refuse_a_value() {
        assert!(ok(quote!("a", mock_server), item()).mock_server);
        assert!(!ok(quote!("a"), item()).mock_server);
        assert_one(
            &errors(quote!("a", mock_server = true), item()),
            "`mock_server` is a flag: write #[mcp_fixture(\"name\", mock_server)]",
        );
    }

    #[test]
    fn accept_a_rules_function_path() {
        let fixture = ok(quote!("a", rules = crate::rules::loose), item());
        let path = fixture.rules.expect("rules");
        assert_eq!(
            quote!(#path).to_string(),
            quote!(crate::rules::loose).to_string()
        );
    }

    #[test]
    fn reject_rules_that_are_not_a_function_path() {
        assert_one(
            &errors(quote!("a", rules = "loose"), item()),
            "`rules` names a function that returns the rules: write rules = my_rules",
        );
        assert_one(
            &errors(quote!("a", rules = make(1)), item()),
            "`rules` names a function",
        );
    }

    #[test]
    fn accept_a_u64_suffixed_timeout() {
        let fixture = ok(quote!("a", timeout_ms = 20u64), item());
        assert_eq!(fixture.timeout_ms.map(|(ms, _)| ms), Some(20));
    }

    #[test]
    fn accept_any_test_attribute_with_arguments_and_a_result() {
        ok(
            quote!("a"),
            quote! {
                #[tokio::test(flavor = "multi_thread")]
                pub async fn a(mut t: mcp_replay::Transport) -> Result<(), String> { Ok(()) }
            },
        );
        ok(
            quote!("a"),
            quote!(
                #[test_log::test]
                async fn a(t: Transport) {}
            ),
        );
    }

    #[test]
    fn ask_for_the_name_when_there_are_no_arguments() {
        assert_one(&errors(quote!(), item()), "needs the fixture name");
    }

    #[test]
    fn ask_for_the_name_first_when_only_options_are_given() {
        assert_one(
            &errors(quote!(dir = "x"), item()),
            "the first argument must be the fixture name",
        );
    }

    #[test]
    fn ask_for_a_string_when_the_name_is_an_identifier() {
        assert_one(
            &errors(quote!(lookup_issue), item()),
            "write #[mcp_fixture(\"lookup_issue\")]",
        );
    }

    #[test]
    fn ask_for_a_string_when_the_name_is_another_literal() {
        assert_one(&errors(quote!(42), item()), "must be a string literal");
    }

    #[test]
    fn reject_an_empty_name() {
        assert_one(&name_errors(""), "the fixture name is empty");
    }

    #[test]
    fn reject_a_parent_component_in_the_name() {
        assert_one(&name_errors("../secrets"), "has a `..` component");
        assert_one(&name_errors("a/../b"), "has a `..` component");
        // `..` inside a component is just a file name.
        assert!(parse(quote!("a..b"), item()).is_ok());
    }

    #[test]
    fn reject_absolute_names_and_suggest_the_relative_one() {
        assert_one(&name_errors("/abs/x"), "absolute path");
        assert_one(&name_errors("/abs/x"), "write e.g. \"abs/x\"");
        assert_one(
            &name_errors("/home/me/fixtures/issues/lookup"),
            "it must be relative to the fixture folder \"fixtures\"; write e.g. \"issues/lookup\"",
        );
        assert_one(
            &errors(quote!("/srv/golden/lookup", dir = "tests/golden"), item()),
            "relative to the fixture folder \"tests/golden\"; write e.g. \"lookup\"",
        );
        assert_one(&name_errors("C:/x"), "Windows drive");
        let backslash = name_errors("\\x");
        assert_one(&backslash, "absolute path");
    }

    #[test]
    fn reject_backslashes_in_the_name() {
        assert_one(
            &name_errors("a\\b"),
            "separate folders with `/`; write e.g. \"a/b\"",
        );
    }

    #[test]
    fn reject_empty_components_in_the_name() {
        assert_one(&name_errors("a//b"), "empty path component");
        assert_one(&name_errors("a/"), "empty path component");
    }

    #[test]
    fn reject_the_jsonl_extension_in_the_name() {
        assert_one(
            &name_errors("lookup_issue.jsonl"),
            "write the name without .jsonl, e.g. \"lookup_issue\"",
        );
    }

    #[test]
    fn report_every_problem_of_one_name() {
        let errors = name_errors("/a/../b.jsonl");
        assert_eq!(errors.len(), 3, "{errors:#?}");
    }

    #[test]
    fn report_name_problems_before_option_problems() {
        let errors = errors(quote!("../a", timeout = 1, dir = "/x"), item());
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert!(errors[0].contains("`..`"), "{errors:#?}");
        assert!(errors[1].contains("unknown option"), "{errors:#?}");
        assert!(errors[2].contains("absolute"), "{errors:#?}");
    }

    #[test]
    fn reject_a_second_literal() {
        assert_one(
            &errors(quote!("a", "b"), item()),
            "the fixture name comes first and only once",
        );
    }

    #[test]
    fn reject_an_unknown_option_listing_the_valid_keys() {
        assert_one(
            &errors(quote!("a", timeout = 5), item()),
            "unknown option `timeout`: the valid keys are `dir`, `timeout_ms`, `rules`, `protocol` and `mock_server`",
        );
        assert_one(
            &errors(quote!("a", a::dir = "x"), item()),
            "unknown option `a::dir`",
        );
    }

    #[test]
    fn reject_a_duplicate_option() {
        assert_one(
            &errors(quote!("a", dir = "x", dir = "y"), item()),
            "duplicate option `dir`",
        );
    }

    #[test]
    fn reject_an_option_without_a_value() {
        assert_one(
            &errors(quote!("a", timeout_ms), item()),
            "`timeout_ms` takes a value: write timeout_ms = 500",
        );
    }

    #[test]
    fn reject_a_timeout_that_is_not_a_positive_integer() {
        let not_int = "`timeout_ms` must be an integer literal";
        assert_one(&errors(quote!("a", timeout_ms = "x"), item()), not_int);
        assert_one(&errors(quote!("a", timeout_ms = 1.5), item()), not_int);
        // rustc hands `-1` over as `-` and `1`; proc-macro2 outside rustc as
        // one literal. Either way it is refused.
        let negative = errors(quote!("a", timeout_ms = -1), item());
        assert_eq!(negative.len(), 1, "{negative:#?}");
        assert!(
            negative[0].contains("`timeout_ms` must be"),
            "{negative:#?}"
        );
        assert_one(
            &errors(quote!("a", timeout_ms = 0), item()),
            "must be greater than 0",
        );
        assert_one(
            &errors(quote!("a", timeout_ms = 500ms), item()),
            "write timeout_ms = 500",
        );
        assert_one(
            &errors(quote!("a", timeout_ms = 99999999999999999999999), item()),
            "does not fit in a u64",
        );
    }

    #[test]
    fn reject_a_dir_that_is_not_a_relative_string() {
        assert_one(
            &errors(quote!("a", dir = 5), item()),
            "`dir` must be a string literal",
        );
        assert_one(&errors(quote!("a", dir = "/tmp"), item()), "absolute path");
        assert_one(&errors(quote!("a", dir = "../shared"), item()), "`..`");
        assert_one(&errors(quote!("a", dir = ""), item()), "`dir` is empty");
    }

    #[test]
    fn report_a_syntax_error_in_the_arguments() {
        let errors = errors(quote!("a", dir =), item());
        assert_eq!(errors.len(), 1, "{errors:#?}");
    }

    #[test]
    fn reject_a_non_async_fn() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    #[tokio::test]
                    fn a(t: Transport) {}
                ),
            ),
            "#[mcp_fixture] needs an `async fn`",
        );
    }

    #[test]
    fn suggest_tokio_test_for_a_sync_fn_under_a_plain_test() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    #[test]
                    fn a(t: Transport) {}
                ),
            ),
            "use #[tokio::test] instead of #[test]",
        );
    }

    #[test]
    fn say_to_reorder_when_tokio_test_already_expanded() {
        // What `#[tokio::test]` written above `#[mcp_fixture]` hands us.
        let item = quote! {
            #[::core::prelude::v1::test]
            fn a(transport: Transport) { body() }
        };
        assert_one(
            &errors(quote!("a"), item),
            "place #[mcp_fixture] above #[tokio::test]: attributes expand top to bottom",
        );
    }

    #[test]
    fn ask_for_a_test_attribute_when_there_is_none() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    async fn a(t: Transport) {}
                ),
            ),
            "add #[tokio::test] below #[mcp_fixture(...)]",
        );
    }

    #[test]
    fn reject_a_fn_without_parameters() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    #[tokio::test]
                    async fn a() {}
                ),
            ),
            "missing the transport parameter; #[mcp_fixture] tests take exactly one parameter, \
             the transport: `async fn a(transport: mcp_replay::Transport)`",
        );
    }

    #[test]
    fn reject_a_fn_with_two_parameters() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    #[tokio::test]
                    async fn a(t: Transport, u: u8, v: u8) {}
                ),
            ),
            "remove the extra parameters",
        );
    }

    #[test]
    fn reject_self() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    #[tokio::test]
                    async fn a(self) {}
                ),
            ),
            "remove `self`",
        );
    }

    #[test]
    fn reject_generics() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    #[tokio::test]
                    async fn a<T>(t: Transport) {}
                ),
            ),
            "cannot be generic",
        );
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    #[tokio::test]
                    async fn a(t: Transport)
                    where
                        u8: Copy,
                    {
                    }
                ),
            ),
            "remove the `where` clause",
        );
    }

    #[test]
    fn reject_a_second_mcp_fixture() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    #[mcp_fixture("b")]
                    #[tokio::test]
                    async fn a(t: Transport) {}
                ),
            ),
            "#[mcp_fixture] is given twice",
        );
    }

    #[test]
    fn reject_an_item_that_is_not_a_fn() {
        assert_one(
            &errors(
                quote!("a"),
                quote!(
                    struct A;
                ),
            ),
            "#[mcp_fixture] goes on an `async fn` test",
        );
    }

    #[test]
    fn collect_all_errors_together() {
        let errors = errors(
            quote!("../a.jsonl", timeout = 1, dir = "/x"),
            quote!(
                fn a() {}
            ),
        );
        // `..`, `.jsonl`, unknown key, absolute dir, not async, no test
        // attribute, no parameter.
        assert_eq!(errors.len(), 7, "{errors:#?}");
    }
}
