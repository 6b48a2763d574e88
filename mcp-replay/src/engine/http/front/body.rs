//! What the front answers with: the body of its responses ([`FrontBody`]: empty, whole, or
//! an SSE stream of events) and the responses it makes of them (a JSON answer, an event
//! stream, a refusal, a JSON-RPC error).

use super::*;

/// The answer to a request from a client that accepts JSON only: the response alone, or
/// 404 when the session ended first.
pub(super) async fn json_answer(
    mut answers: mpsc::UnboundedReceiver<Event>,
) -> Response<FrontBody> {
    match answers.recv().await {
        Some(Event::Message { line, .. }) => {
            let mut response = Response::new(FrontBody::full(line));
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        Some(Event::Status(status)) => status_instead(status),
        // A fault's pieces (or its break): the body as they come.
        first @ Some(_) => event_stream(first, answers, "application/json"),
        None => refuse(
            StatusCode::NOT_FOUND,
            "Not Found: the session ended before the server answered",
        ),
    }
}

/// A `200` stream of `first` and then `events` (SSE, or a trickled JSON body as
/// `content_type` says), ending when the sender of `events` is dropped.
pub(super) fn event_stream(
    first: Option<Event>,
    events: mpsc::UnboundedReceiver<Event>,
    content_type: &'static str,
) -> Response<FrontBody> {
    let mut response = Response::new(FrontBody(Inner::Events(first, events)));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A status a fault on cue gives instead of the answer: no message, a line of text.
pub(super) fn status_instead(status: StatusCode) -> Response<FrontBody> {
    let text = format!("{status} (a fault on cue of mcp-replay's mock)\n");
    let mut response = Response::new(FrontBody::full(text.into()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// An HTTP-level refusal: `status` with a JSON-RPC error body.
pub(super) fn refuse(status: StatusCode, message: impl Into<String>) -> Response<FrontBody> {
    error_response(status, SERVER_ERROR, message.into())
}

/// `status` with the JSON-RPC error `code`; its `id` is `null` (the request's own is passed
/// to [`error_answering`]).
pub(super) fn error_response(
    status: StatusCode,
    code: i64,
    message: String,
) -> Response<FrontBody> {
    error_answering(&Value::Null, status, code, message)
}

/// `status` with the JSON-RPC error `code` answering the request whose id is `id` (the
/// specification's `-32020` example carries the request's id).
pub(super) fn error_answering(
    id: &Value,
    status: StatusCode,
    code: i64,
    message: String,
) -> Response<FrontBody> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut response = Response::new(FrontBody::full(body.to_string().into()));
    *response.status_mut() = status;
    response.extensions_mut().insert(Refusal(message));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The body of a [`Front`]'s responses: a JSON message, nothing, or an SSE stream that
/// ends when its request is answered (the GET stream: when the session ends).
pub struct FrontBody(Inner);

pub(super) enum Inner {
    Full(Option<Bytes>),
    /// The first event (taken before the head), then the rest.
    Events(Option<Event>, mpsc::UnboundedReceiver<Event>),
}

impl FrontBody {
    pub(super) fn empty() -> FrontBody {
        FrontBody(Inner::Full(None))
    }

    pub(super) fn full(bytes: Bytes) -> FrontBody {
        FrontBody(Inner::Full(Some(bytes)))
    }
}

impl std::fmt::Debug for FrontBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Inner::Full(bytes) => f.debug_tuple("Full").field(bytes).finish(),
            Inner::Events(..) => f.write_str("Events"),
        }
    }
}

impl Body for FrontBody {
    type Data = Bytes;
    /// Only a fault on cue (a stream cut) ends a body with an error.
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let (first, events) = match &mut self.get_mut().0 {
            Inner::Full(bytes) => return Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Inner::Events(first, events) => (first, events),
        };
        let event = match first.take() {
            Some(event) => Some(event),
            None => std::task::ready!(events.poll_recv(cx)),
        };
        Poll::Ready(event.map(|event| match event {
            Event::Message { id, line } => Ok(Frame::data(Event::sse(id, &line))),
            Event::Raw(bytes) => Ok(Frame::data(bytes)),
            // A status comes before the head, never here: as a break.
            Event::Status(_) | Event::Reset => Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "the stream cut (a fault on cue)",
            )),
        }))
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.0, Inner::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.0 {
            Inner::Full(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len()) as u64)
            }
            Inner::Events(..) => SizeHint::default(),
        }
    }
}
