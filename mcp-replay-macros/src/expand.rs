//! Code generation: one call into `::mcp_replay::__private::run` (the runtime's
//! `harness::run`), and a panic with its failure at the test's own location.

use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{AttrStyle, LitInt, ReturnType};

use crate::parse::{self, Fixture};

/// The whole attribute on `proc_macro2` tokens: parse, validate, expand.
///
/// On any error the item comes back unchanged, followed by one
/// `compile_error!` per problem, so the function still exists for editors
/// and the other attributes (as tokio-macros does).
pub fn mcp_fixture(args: TokenStream, item: TokenStream) -> TokenStream {
    match parse::parse(args, item.clone()) {
        Ok(fixture) => expand(&fixture),
        Err(errors) => {
            let mut out = item;
            out.extend(errors.into_iter().map(|e| e.to_compile_error()));
            out
        }
    }
}

/// Rewrites the validated test: same attributes (in order), same visibility
/// and qualifiers, no parameters and no return type; the body moves into the
/// serve closure handed to `::mcp_replay::__private::run`.
pub fn expand(fixture: &Fixture) -> TokenStream {
    let item = &fixture.item;
    let outer = item
        .attrs
        .iter()
        .filter(|a| matches!(a.style, AttrStyle::Outer));
    let inner = item
        .attrs
        .iter()
        .filter(|a| matches!(a.style, AttrStyle::Inner(_)));
    let vis = &item.vis;
    let mut sig = item.sig.clone();
    sig.inputs = Punctuated::new();
    sig.output = ReturnType::Default;
    let ident = &sig.ident;
    let spec = spec(fixture, ident);
    let (entry, serve) = match &fixture.transport {
        Some(transport) => (quote!(run), serve_closure(fixture, transport)),
        // With `http`, the body makes the service the fixture replays against.
        None => (quote!(run_http), typed_body(fixture)),
    };
    // The failure is raised here, in the test's own code, spanned at its name: a failing
    // test's panic points at the test function's file and line, not into mcp-replay.
    let raise = quote::quote_spanned! {ident.span()=>
        ::core::panic!("{}", __mcp_replay_failure)
    };
    quote! {
        #(#outer)*
        #vis #sig {
            #(#inner)*
            if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::__private::#entry(
                #spec,
                #serve,
            )
            .await
            {
                #raise
            }
        }
    }
}

/// The `::mcp_replay::__private::Spec` literal: where the fixture is and the options.
fn spec(fixture: &Fixture, ident: &syn::Ident) -> TokenStream {
    let name = &fixture.name;
    let dir = match &fixture.dir {
        Some(dir) => quote!(#dir),
        None => quote!("fixtures"),
    };
    let timeout_ms = some_or_none(fixture.timeout_ms.map(|(ms, span)| {
        let ms = LitInt::new(&format!("{ms}u64"), span);
        quote!(#ms)
    }));
    let rules = match &fixture.rules {
        Some(path) => {
            let span = syn::spanned::Spanned::span(path);
            quote::quote_spanned!(span=> ::core::option::Option::Some(#path as fn() -> ::mcp_replay::Rules))
        }
        None => quote!(::core::option::Option::None),
    };
    let protocol = some_or_none(fixture.protocol.as_ref().map(|v| quote!(#v)));
    let protocol_check = some_or_none(fixture.protocol_check.as_ref().map(|v| quote!(#v)));
    let mock_server = fixture.mock_server;
    let allow_stray_output = fixture.allow_stray_output;
    quote! {
        ::mcp_replay::__private::Spec {
            manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
            dir: #dir,
            name: #name,
            test_path: ::core::concat!(
                ::core::module_path!(),
                "::",
                ::core::stringify!(#ident)
            ),
            timeout_ms: #timeout_ms,
            rules: #rules,
            protocol: #protocol,
            protocol_check: #protocol_check,
            mock_server: #mock_server,
            allow_stray_output: #allow_stray_output,
        }
    }
}

/// `Some(value)` or `None`, as tokens.
fn some_or_none(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// The test's body as the serve closure, taking the transport parameter as written.
fn serve_closure(fixture: &Fixture, transport: &syn::PatType) -> TokenStream {
    let param_attrs = &transport.attrs;
    let pat = &transport.pat;
    let ty = &transport.ty;
    let body = typed_body(fixture);
    quote!(|#(#param_attrs)* #pat: #ty| #body)
}

/// The test's body as an `async move` block. With a return type, the body's value is bound
/// to it, so that `?` inside the body knows which error type to convert into and a generic
/// value (`StreamableHttpService::new(..)` under `http`) knows its parameters.
fn typed_body(fixture: &Fixture) -> TokenStream {
    let block = &fixture.item.block;
    match &fixture.item.sig.output {
        ReturnType::Default => quote!(async move #block),
        ReturnType::Type(_, out) => quote! {
            async move {
                let __mcp_replay_out: #out = (async move #block).await;
                __mcp_replay_out
            }
        },
    }
}

#[cfg(test)]
mod should {
    use super::*;

    fn expanded(args: TokenStream, item: TokenStream) -> String {
        mcp_fixture(args, item).to_string()
    }

    #[test]
    fn expand_the_readme_example_to_one_runtime_call() {
        let out = expanded(
            quote!("lookup_issue"),
            quote! {
                #[tokio::test]
                async fn lookup_issue(transport: Transport) {
                    let server = DemoServer::default().serve(transport).await.unwrap();
                    let _ = server.waiting().await;
                }
            },
        );
        let expected = quote! {
            #[tokio::test]
            async fn lookup_issue() {
                if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::__private::run(
                    ::mcp_replay::__private::Spec {
                        manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                        dir: "fixtures",
                        name: "lookup_issue",
                        test_path: ::core::concat!(
                            ::core::module_path!(),
                            "::",
                            ::core::stringify!(lookup_issue)
                        ),
                        timeout_ms: ::core::option::Option::None,
                        rules: ::core::option::Option::None,
                        protocol: ::core::option::Option::None,
                        protocol_check: ::core::option::Option::None,
                        mock_server: false,
                        allow_stray_output: false,
                    },
                    |transport: Transport| async move {
                        let server = DemoServer::default().serve(transport).await.unwrap();
                        let _ = server.waiting().await;
                    },
                )
                .await
                {
                    ::core::panic!("{}", __mcp_replay_failure)
                }
            }
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn keep_every_other_attribute_in_order_and_add_no_test_attribute() {
        let out = expanded(
            quote!("a"),
            quote! {
                /// Docs.
                #[allow(unused)]
                #[tokio::test(flavor = "multi_thread")]
                #[ignore = "slow"]
                pub(crate) async fn a(mut t: mcp_replay::Transport) {
                    #![allow(clippy::all)]
                    drop(t);
                }
            },
        );
        let expected = quote! {
            #[doc = r" Docs."]
            #[allow(unused)]
            #[tokio::test(flavor = "multi_thread")]
            #[ignore = "slow"]
            pub(crate) async fn a() {
                #![allow(clippy::all)]
                if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::__private::run(
                    ::mcp_replay::__private::Spec {
                        manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                        dir: "fixtures",
                        name: "a",
                        test_path: ::core::concat!(
                            ::core::module_path!(),
                            "::",
                            ::core::stringify!(a)
                        ),
                        timeout_ms: ::core::option::Option::None,
                        rules: ::core::option::Option::None,
                        protocol: ::core::option::Option::None,
                        protocol_check: ::core::option::Option::None,
                        mock_server: false,
                        allow_stray_output: false,
                    },
                    |mut t: mcp_replay::Transport| async move {
                        drop(t);
                    },
                )
                .await
                {
                    ::core::panic!("{}", __mcp_replay_failure)
                }
            }
        };
        assert_eq!(out, expected.to_string());
        assert_eq!(out.matches("test").count(), 2, "{out}");
    }

    #[test]
    fn pass_the_options_and_type_the_body_by_the_return_type() {
        let out = expanded(
            quote!("issues/lookup", dir = "tests/fixtures", timeout_ms = 500),
            quote! {
                #[tokio::test]
                async fn lookup(transport: Transport) -> Result<(), String> {
                    serve(transport).await?;
                    Ok(())
                }
            },
        );
        let expected = quote! {
            #[tokio::test]
            async fn lookup() {
                if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::__private::run(
                    ::mcp_replay::__private::Spec {
                        manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                        dir: "tests/fixtures",
                        name: "issues/lookup",
                        test_path: ::core::concat!(
                            ::core::module_path!(),
                            "::",
                            ::core::stringify!(lookup)
                        ),
                        timeout_ms: ::core::option::Option::Some(500u64),
                        rules: ::core::option::Option::None,
                        protocol: ::core::option::Option::None,
                        protocol_check: ::core::option::Option::None,
                        mock_server: false,
                        allow_stray_output: false,
                    },
                    |transport: Transport| async move {
                        let __mcp_replay_out: Result<(), String> = (async move {
                            serve(transport).await?;
                            Ok(())
                        })
                        .await;
                        __mcp_replay_out
                    },
                )
                .await
                {
                    ::core::panic!("{}", __mcp_replay_failure)
                }
            }
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn give_back_the_item_unchanged_followed_by_every_error() {
        let item = quote! {
            #[tokio::test]
            fn a() {}
        };
        let out = expanded(quote!("", bogus = 1), item.clone());
        let item = item.to_string();
        assert!(out.starts_with(&item), "{out}");
        let errors = &out[item.len()..];
        // Empty name, unknown key, not async, no parameter.
        assert_eq!(errors.matches("compile_error").count(), 4, "{errors}");
    }
}
