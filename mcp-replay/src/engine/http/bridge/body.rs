//! Reading response bodies: a JSON body within the body limit, an error body and the
//! excerpt a problem quotes, a response's media type.

use super::Shared;
use bytes::Buf;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::Response;
use http_body::Body;
use http_body_util::BodyExt;
use std::borrow::Cow;
use std::fmt::Display;
use std::time::Duration;

/// How much of an error body a problem quotes.
const EXCERPT: usize = 200;
/// The most of an error body read (a JSON-RPC error in it is forwarded).
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// How long an error body is waited for.
const ERROR_BODY_WAIT: Duration = Duration::from_secs(1);

/// The lowercase media type of a response, without parameters (borrowed from the header
/// when it is lowercase already).
pub(super) fn content_type<B>(response: &Response<B>) -> Option<Cow<'_, str>> {
    let value = response.headers().get(CONTENT_TYPE)?.as_bytes();
    let end = memchr::memchr(b';', value).unwrap_or(value.len());
    let media = std::str::from_utf8(value[..end].trim_ascii()).ok()?;
    Some(if media.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(media.to_ascii_lowercase())
    } else {
        Cow::Borrowed(media)
    })
}

/// The bytes of a JSON body, or `None` when reading it failed or it is larger than the
/// body limit (the problem noted).
pub(super) async fn read_json_body<B>(
    shared: &Shared,
    what: &(dyn Display + Sync),
    body: B,
) -> Option<Vec<u8>>
where
    B: Body,
    B::Error: Display,
{
    let mut body = Box::pin(body);
    let mut bytes = Vec::new();
    loop {
        match body.as_mut().frame().await {
            None => return Some(bytes),
            Some(Err(error)) => {
                shared.problem(format!("{what}: reading the JSON body failed: {error}"));
                return None;
            }
            Some(Ok(frame)) => {
                if let Ok(mut data) = frame.into_data() {
                    if bytes.len() + data.remaining() > shared.body_limit {
                        shared.problem(format!(
                            "{what}: the JSON body is larger than {} bytes",
                            shared.body_limit
                        ));
                        return None;
                    }
                    while data.has_remaining() {
                        let chunk = data.chunk();
                        bytes.extend_from_slice(chunk);
                        let len = chunk.len();
                        data.advance(len);
                    }
                }
            }
        }
    }
}

/// The start of an error body, as `: <excerpt>`, or nothing.
pub(super) async fn error_excerpt<B>(body: B) -> String
where
    B: Body,
{
    excerpt_of(&error_body(body).await)
}

/// `: ` and the start of an error body, or nothing for an empty one.
pub(super) fn excerpt_of(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        String::new()
    } else {
        format!(": {}", excerpt(bytes))
    }
}

/// An error response's body: up to [`ERROR_BODY_LIMIT`] bytes, read for at most
/// [`ERROR_BODY_WAIT`].
pub(super) async fn error_body<B>(body: B) -> Vec<u8>
where
    B: Body,
{
    let mut body = Box::pin(body);
    let mut bytes = Vec::new();
    let read = async {
        while bytes.len() < ERROR_BODY_LIMIT {
            match body.as_mut().frame().await {
                Some(Ok(frame)) => {
                    if let Ok(mut data) = frame.into_data() {
                        while data.has_remaining() {
                            let chunk = data.chunk();
                            bytes.extend_from_slice(chunk);
                            let len = chunk.len();
                            data.advance(len);
                        }
                    }
                }
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(ERROR_BODY_WAIT, read).await;
    bytes
}

pub(super) fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(EXCERPT)]);
    text.trim().to_owned()
}

pub(super) fn show(value: &HeaderValue) -> String {
    String::from_utf8_lossy(value.as_bytes()).into_owned()
}
