//! Reading a 200 answer: a JSON body, or an SSE stream ([`read_stream`]); an answer
//! that ends without its response is a problem.

use super::answer::{forward, Answer, Read};
use super::body::{content_type, read_json_body};
use super::client::Client;
use super::stream::read_stream;
use super::Shared;
use crate::engine::http::HttpService;
use http::Response;
use http_body::Body;
use serde_json::Value;
use std::fmt::Display;
use std::sync::Arc;

/// Reads a 200 answer to a request (a JSON body or an SSE stream), or the GET stream,
/// writing each server message to the pipe; an SSE stream is dropped and resumed at the
/// answer's drop points.
pub(super) async fn read_answer<S: HttpService>(
    shared: Arc<Shared>,
    client: Arc<Client<S>>,
    response: Response<S::ResBody>,
    answer: Answer,
) {
    let what = &answer.what;
    let sse = match content_type(&response).as_deref() {
        Some("application/json") => false,
        Some("text/event-stream") => true,
        Some(other) => {
            shared.problem(format!(
                "{what}: answered with Content-Type `{other}` instead of application/json \
                 or text/event-stream"
            ));
            return;
        }
        None => {
            shared.problem(format!("{what}: answered 200 without a Content-Type"));
            return;
        }
    };
    let body = response.into_body();
    let read = if sse {
        read_stream(&shared, &client, &answer, body).await
    } else {
        read_json(&shared, &answer, body).await
    };
    if let Some(read) = read {
        note_unanswered(&shared, &answer, read);
    }
}

/// Reads a JSON answer (one message or a batch), forwarding its messages: `None` when
/// the body cannot be read or is not JSON (the problem noted).
async fn read_json<B>(shared: &Shared, answer: &Answer, body: B) -> Option<Read>
where
    B: Body,
    B::Error: Display,
{
    let what = &answer.what;
    if let Some(point) = answer.resume.first() {
        shared.problem(format!(
            "{what}: answered with JSON, not an SSE stream: there is no stream to drop \
             and resume (http_resume, fixture line {})",
            point.line
        ));
    }
    let bytes = read_json_body(shared, what, body).await?;
    let mut answered = false;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Array(messages)) => {
            for message in messages {
                answered |= forward(shared, answer, message, None);
            }
        }
        Ok(message) => answered |= forward(shared, answer, message, Some(&bytes)),
        Err(error) => {
            shared.problem(format!("{what}: the JSON body is not JSON ({error})"));
            return None;
        }
    }
    Some(Read {
        answered,
        resumed: None,
    })
}

/// The problem of an answer to a request that ended without the response.
fn note_unanswered(shared: &Shared, answer: &Answer, read: Read) {
    let what = &answer.what;
    match (read.answered, answer.id(), read.resumed) {
        (false, Some(id), None) => shared.problem(format!(
            "{what}: the answer ended without the response to request {id}"
        )),
        (false, Some(id), Some(after)) => shared.problem(format!(
            "{what}: the stream resumed after event `{after}` ended without the response to \
             request {id}: the server did not redeliver it"
        )),
        _ => {}
    }
}
