//! Reading an SSE answer: its events forwarded, the stream dropped at each drop point and
//! resumed with `Last-Event-ID`, and what a resumed stream redelivers or fails to deliver.

use super::answer::{forward_text, Answer, Read};
use super::body::excerpt;
use super::client::Client;
use super::outgoing::What;
use super::Shared;
use crate::engine::http::sse::{SseError, SseEvent, SseParser};
use crate::engine::http::HttpService;
use bytes::Buf;
use http_body::Body;
use http_body_util::BodyExt;
use serde_json::Value;
use std::collections::HashSet;
use std::fmt::Display;
use std::sync::Arc;

/// Reads an SSE answer, forwarding its messages, and at each drop point drops the
/// stream and resumes it: `None` when a connection could not be read or resumed (the
/// problem noted).
pub(super) async fn read_stream<S: HttpService>(
    shared: &Arc<Shared>,
    client: &Client<S>,
    answer: &Answer,
    body: S::ResBody,
) -> Option<Read> {
    let mut body = Box::pin(body);
    let mut stream = Stream::default();
    let mut resumed: Option<String> = None;
    // While a resumed stream is read: what the replay is told if it ends first.
    let mut waiting: Option<Unanswered> = None;
    let answered = loop {
        match read_sse(shared, answer, &mut stream, body.as_mut()).await {
            SseEnd::Answered => break true,
            SseEnd::Ended => break false,
            SseEnd::Failed => {
                // The failure is noted; the stream owes nothing more.
                Unanswered::settle(&mut waiting);
                return None;
            }
            SseEnd::Drop { after, line } => {
                // A resumed stream that reached the next drop point did its part; what
                // the next resumption owes is the next guard's (or the resume's problem).
                Unanswered::settle(&mut waiting);
                // Dropping the body is the disconnect the server sees.
                drop(body);
                client.wait_to_resume(stream.retry).await;
                let response = client.resume(answer, &after, line, shared).await?;
                body = Box::pin(response.into_body());
                stream.resumed();
                if let Some(id) = answer.id() {
                    waiting = Some(Unanswered::resumed(shared, answer, id, &after, line));
                }
                resumed = Some(after);
            }
        }
    };
    Unanswered::settle(&mut waiting);
    Some(Read { answered, resumed })
}

/// A resumed stream still owing its response: when the replay ends first (the reader is
/// dropped unfinished), its problem is noted.
struct Unanswered {
    shared: Arc<Shared>,
    problem: Option<String>,
}

impl Unanswered {
    /// Takes the guard off: the reader reports for itself from here.
    fn settle(waiting: &mut Option<Unanswered>) {
        if let Some(mut guard) = waiting.take() {
            guard.problem = None;
        }
    }

    /// The stream of `answer` (to request `id`), resumed after event `after` at the drop
    /// point of fixture line `line`.
    fn resumed(
        shared: &Arc<Shared>,
        answer: &Answer,
        id: &Value,
        after: &str,
        line: usize,
    ) -> Unanswered {
        Unanswered {
            shared: shared.clone(),
            problem: Some(format!(
                "{}: the stream resumed after event `{after}` had not delivered the response \
                 to request {id} when the replay ended: the server did not redeliver it \
                 (http_resume, fixture line {line})",
                answer.what
            )),
        }
    }
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some(problem) = self.problem.take() {
            self.shared.problem(problem);
        }
    }
}

/// What the reader of one SSE answer keeps across the stream and its resumptions.
#[derive(Default)]
struct Stream {
    /// Progress notifications forwarded so far.
    progress: usize,
    /// How many of the answer's drop points are behind.
    passed: usize,
    /// The event ids received, on this stream and its resumptions.
    ids: HashSet<String>,
    /// The messages (event data) received.
    received: HashSet<String>,
    /// The messages received before the latest drop: one of them again is a redelivery.
    before: HashSet<String>,
    /// The id the current connection's previous event carried (an event without an `id:`
    /// field inherits it).
    own_id: Option<String>,
    /// The reconnection time the server last asked for (an SSE `retry:` field), in ms.
    retry: Option<u64>,
    /// Whether a resumed event without an id was reported.
    idless_noted: bool,
}

/// How reading one SSE connection ended.
enum SseEnd {
    /// The response came.
    Answered,
    /// The stream ended without it.
    Ended,
    /// Unreadable; the problem is noted.
    Failed,
    /// A drop point: the stream is to be resumed after event `after`.
    Drop {
        /// The last event id received.
        after: String,
        /// The marked fixture line.
        line: usize,
    },
}

impl Stream {
    /// Notes an event's `retry:` time and, on a `resumable` stream, its id: returns the
    /// event's own id, not the one it inherits from the event before it (always `None` on
    /// a stream that is never resumed, where no id is looked at).
    fn own_id_of(&mut self, event: &SseEvent, resumable: bool) -> Option<String> {
        if event.retry.is_some() {
            self.retry = event.retry;
        }
        if !resumable {
            return None;
        }
        let own = event
            .id
            .clone()
            .filter(|id| self.own_id.as_ref() != Some(id));
        self.own_id.clone_from(&event.id);
        own
    }

    /// After a drop and its resumption: what was received so far is what a redelivery
    /// would repeat, and the new connection's first event inherits no id.
    fn resumed(&mut self) {
        self.before = self.received.clone();
        self.own_id = None;
    }
}

/// Reads one SSE connection of an answer, forwarding its messages; after a resumption,
/// an event id or a message received before the drop is a redelivery (noted, not
/// forwarded), and an event without an id is noted once.
async fn read_sse<B>(
    shared: &Shared,
    answer: &Answer,
    stream: &mut Stream,
    mut body: std::pin::Pin<&mut B>,
) -> SseEnd
where
    B: Body,
    B::Error: Display,
{
    let what = &answer.what;
    let resumed = stream.passed > 0;
    let mut parser = SseParser::with_limit(shared.body_limit);
    let mut events: Vec<SseEvent> = Vec::new();
    loop {
        let frame = match body.as_mut().frame().await {
            None => break,
            Some(Err(error)) => {
                shared.problem(format!("{what}: reading the SSE stream failed: {error}"));
                return SseEnd::Failed;
            }
            Some(Ok(frame)) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let failed = feed(&mut parser, data, &mut events);
        for event in events.drain(..) {
            if let Some(end) = on_event(shared, answer, stream, resumed, event) {
                return end;
            }
        }
        if let Some(error) = failed {
            shared.problem(format!("{what}: malformed SSE stream: {error}"));
            return SseEnd::Failed;
        }
    }
    if parser.is_mid_event() {
        shared.problem(format!(
            "{what}: the SSE stream ended inside an event (no blank line after it)"
        ));
    }
    SseEnd::Ended
}

/// Feeds one frame's data to `parser`, collecting the events it completes into
/// `events`; stops at the first malformed chunk, returning its error.
fn feed(
    parser: &mut SseParser,
    mut data: impl Buf,
    events: &mut Vec<SseEvent>,
) -> Option<SseError> {
    let mut failed: Option<SseError> = None;
    while data.has_remaining() && failed.is_none() {
        let chunk = data.chunk();
        failed = parser.feed(chunk, events).err();
        let len = chunk.len();
        data.advance(len);
    }
    failed
}

/// Handles one SSE event of an answer (`resumed`: on a resumed connection): forwards
/// its message unless it is none or a redelivery. `Some` ends the connection: the
/// response came, or a drop point was reached.
fn on_event(
    shared: &Shared,
    answer: &Answer,
    stream: &mut Stream,
    resumed: bool,
    event: SseEvent,
) -> Option<SseEnd> {
    let what = &answer.what;
    // Only a stream that may be dropped and resumed keeps what it received: a redelivery
    // can only happen on a resumed one.
    let resumable = !answer.resume.is_empty();
    let own = stream.own_id_of(&event, resumable);
    let fresh = if resumable {
        is_fresh(shared, what, stream, resumed, own.as_ref(), &event)
    } else {
        // Not a priming event (an id and a retry for reconnection, no message).
        !event.data.is_empty()
    };
    if !fresh {
        return None;
    }
    if event.event != "message" {
        shared.problem(format!(
            "{what}: an SSE event of type `{}` instead of `message`",
            event.event
        ));
    }
    // What a redelivery would repeat; the data itself goes to the pipe.
    let received = resumable.then(|| event.data.clone());
    let forwarded = match forward_text(shared, answer, event.data) {
        Ok(forwarded) => forwarded,
        Err((error, data)) => {
            shared.problem(format!(
                "{what}: an SSE event's data is not JSON ({error}): {}",
                excerpt(data.as_bytes())
            ));
            return None;
        }
    };
    if forwarded.is_response {
        // The stream has served its purpose; the server closes it now.
        return Some(SseEnd::Answered);
    }
    stream.received.extend(received);
    if !forwarded.progress {
        return None;
    }
    at_progress(shared, answer, stream, event.id)
}

/// Whether an event (with its own id `own`) carries a message to forward: not a priming
/// event without data, and, on a `resumed` connection, no redelivery of an event id or of
/// a message received before the drop (noted). The first resumed message without an id
/// is noted too (forwarded all the same).
fn is_fresh(
    shared: &Shared,
    what: &What,
    stream: &mut Stream,
    resumed: bool,
    own: Option<&String>,
    event: &SseEvent,
) -> bool {
    if let Some(id) = own {
        if !stream.ids.insert(id.clone()) && resumed && !event.data.is_empty() {
            shared.problem(format!(
                "{what}: the resumed stream redelivered event `{id}`, already received \
                 before the drop"
            ));
            return false;
        }
    }
    if event.data.is_empty() {
        // A priming event (an id and a retry for reconnection), no message.
        return false;
    }
    if resumed && stream.before.contains(&event.data) {
        shared.problem(format!(
            "{what}: the resumed stream redelivered a message already received before \
             the drop: {}",
            excerpt(event.data.as_bytes())
        ));
        return false;
    }
    if resumed && own.is_none() && !stream.idless_noted {
        stream.idless_noted = true;
        shared.problem(format!(
            "{what}: the resumed stream's events carry no id: it could not be resumed \
             again"
        ));
    }
    true
}

/// Counts a progress notification (event id `id`): at the answer's next drop point, the
/// stream is to be dropped after it ([`SseEnd::Drop`]), or, when its events carry no id,
/// the problem is noted and the stream read on.
fn at_progress(
    shared: &Shared,
    answer: &Answer,
    stream: &mut Stream,
    id: Option<String>,
) -> Option<SseEnd> {
    stream.progress += 1;
    let point = answer.resume.get(stream.passed)?;
    if point.progress != stream.progress {
        return None;
    }
    stream.passed += 1;
    match id {
        // The events after this one in the chunk are dropped with the stream: the
        // resumption redelivers them.
        Some(after) => Some(SseEnd::Drop {
            after,
            line: point.line,
        }),
        None => {
            shared.problem(format!(
                "{}: the server keeps no event store: its SSE events carry no id, so the \
                 stream cannot be resumed (http_resume, fixture line {}); it was read on \
                 without a drop",
                answer.what, point.line
            ));
            None
        }
    }
}
