//! Code generation: one chain of calls on the runtime's public builder
//! `::mcp_replay::harness::Test` (a knob is one method call), and a panic with its failure
//! at the test's own location.

use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{AttrStyle, Ident, LitInt, ReturnType};

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
/// serve closure handed to `Test::serve_each` (or `client`, or `pair` for a body that is
/// the client, or the service future to `http`).
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
    let test = test(fixture, ident);
    let (entry, body) = match &fixture.transport {
        Some(server) if fixture.client.is_some() => {
            let client = fixture.client.as_ref().expect("matched");
            (quote!(pair), pair_closure(fixture, server, client))
        }
        Some(transport) if fixture.has("mock_server") => {
            (quote!(client), serve_closure(fixture, transport))
        }
        Some(transport) => (quote!(serve_each), serve_closure(fixture, transport)),
        // With `http`, the body makes the service the fixture replays against.
        None => (quote!(http), typed_body(fixture)),
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
            if let ::core::result::Result::Err(__mcp_replay_failure) = #test
                .#entry(#body)
                .await
            {
                #raise
            }
        }
    }
}

/// `::mcp_replay::harness::Test::new(..)` and one call per knob given.
fn test(fixture: &Fixture, ident: &Ident) -> TokenStream {
    let name = &fixture.name;
    let mut calls = Vec::new();
    if let Some(dir) = &fixture.dir {
        calls.push(quote!(.dir(#dir)));
    }
    if let Some((ms, span)) = fixture.timeout_ms {
        let ms = LitInt::new(&format!("{ms}u64"), span);
        calls.push(quote!(.timeout_ms(#ms)));
    }
    if let Some(path) = &fixture.rules {
        let span = syn::spanned::Spanned::span(path);
        calls.push(quote::quote_spanned!(span=> .rules(#path as fn() -> ::mcp_replay::Rules)));
    }
    if let Some(version) = &fixture.protocol {
        calls.push(quote!(.protocol(#version)));
    }
    if let Some(check) = &fixture.protocol_check {
        // The value as the runtime's own variant, spanned at the literal: checked by the
        // compiler, not parsed again at run time.
        let variant = Ident::new(&capitalized(&check.value()), check.span());
        calls.push(quote!(.protocol_check(::mcp_replay::ProtocolCheck::#variant)));
    }
    if fixture.has("allow_stray_output") {
        calls.push(quote!(.allow_stray_output()));
    }
    quote! {
        ::mcp_replay::harness::Test::new(
            ::core::env!("CARGO_MANIFEST_DIR"),
            #name,
            ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#ident)),
        )
        #(#calls)*
    }
}

/// `warn` as `Warn`.
fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The test's body as the serve closure, taking the transport parameter as written.
fn serve_closure(fixture: &Fixture, transport: &syn::PatType) -> TokenStream {
    let param_attrs = &transport.attrs;
    let pat = &transport.pat;
    let ty = &transport.ty;
    let body = typed_body(fixture);
    quote!(|#(#param_attrs)* #pat: #ty| #body)
}

/// The test's body as the closure of a body that is the client, taking the server's and
/// the client's transports as written.
fn pair_closure(fixture: &Fixture, server: &syn::PatType, client: &syn::PatType) -> TokenStream {
    let (server_attrs, server_pat, server_ty) = (&server.attrs, &server.pat, &server.ty);
    let (client_attrs, client_pat, client_ty) = (&client.attrs, &client.pat, &client.ty);
    let body = typed_body(fixture);
    quote!(|#(#server_attrs)* #server_pat: #server_ty, #(#client_attrs)* #client_pat: #client_ty| #body)
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
                if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::harness::Test::new(
                    ::core::env!("CARGO_MANIFEST_DIR"),
                    "lookup_issue",
                    ::core::concat!(::core::module_path!(), "::", ::core::stringify!(lookup_issue)),
                )
                .serve_each(|transport: Transport| async move {
                    let server = DemoServer::default().serve(transport).await.unwrap();
                    let _ = server.waiting().await;
                })
                .await
                {
                    ::core::panic!("{}", __mcp_replay_failure)
                }
            }
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn expand_two_transports_to_a_body_that_is_the_client() {
        let out = expanded(
            quote!("notes"),
            quote! {
                #[tokio::test]
                async fn notes(server: Transport, client: Transport) {
                    run(server, client).await;
                }
            },
        );
        let expected = quote! {
            #[tokio::test]
            async fn notes() {
                if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::harness::Test::new(
                    ::core::env!("CARGO_MANIFEST_DIR"),
                    "notes",
                    ::core::concat!(::core::module_path!(), "::", ::core::stringify!(notes)),
                )
                .pair(|server: Transport, client: Transport| async move {
                    run(server, client).await;
                })
                .await
                {
                    ::core::panic!("{}", __mcp_replay_failure)
                }
            }
        };
        assert_eq!(out, expected.to_string());
        let refused = expanded(
            quote!("notes", mock_server),
            quote! {
                #[tokio::test]
                async fn notes(server: Transport, client: Transport) {}
            },
        );
        assert!(
            refused.contains("with `mock_server` the fixture plays the server"),
            "{refused}"
        );
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
                if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::harness::Test::new(
                    ::core::env!("CARGO_MANIFEST_DIR"),
                    "a",
                    ::core::concat!(::core::module_path!(), "::", ::core::stringify!(a)),
                )
                .serve_each(|mut t: mcp_replay::Transport| async move {
                    drop(t);
                })
                .await
                {
                    ::core::panic!("{}", __mcp_replay_failure)
                }
            }
        };
        assert_eq!(out, expected.to_string());
        assert_eq!(out.matches(":: test").count(), 1, "{out}");
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
                if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::harness::Test::new(
                    ::core::env!("CARGO_MANIFEST_DIR"),
                    "issues/lookup",
                    ::core::concat!(::core::module_path!(), "::", ::core::stringify!(lookup)),
                )
                .dir("tests/fixtures")
                .timeout_ms(500u64)
                .serve_each(|transport: Transport| async move {
                    let __mcp_replay_out: Result<(), String> = (async move {
                        serve(transport).await?;
                        Ok(())
                    })
                    .await;
                    __mcp_replay_out
                })
                .await
                {
                    ::core::panic!("{}", __mcp_replay_failure)
                }
            }
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn expand_each_knob_to_one_builder_call_and_the_check_to_its_variant() {
        let out = expanded(
            quote!(
                "a",
                rules = my::rules,
                protocol = "2026-07-28",
                protocol_check = "warn",
                allow_stray_output,
                mock_server
            ),
            quote! {
                #[tokio::test]
                async fn a(transport: Transport) {
                    drop(transport);
                }
            },
        );
        let expected = quote! {
            #[tokio::test]
            async fn a() {
                if let ::core::result::Result::Err(__mcp_replay_failure) = ::mcp_replay::harness::Test::new(
                    ::core::env!("CARGO_MANIFEST_DIR"),
                    "a",
                    ::core::concat!(::core::module_path!(), "::", ::core::stringify!(a)),
                )
                .rules(my::rules as fn() -> ::mcp_replay::Rules)
                .protocol("2026-07-28")
                .protocol_check(::mcp_replay::ProtocolCheck::Warn)
                .allow_stray_output()
                .client(|transport: Transport| async move {
                    drop(transport);
                })
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
