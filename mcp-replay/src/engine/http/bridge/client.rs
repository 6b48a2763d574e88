//! The service and how to reach it: the requests the bridge sends (POST, the GETs for
//! SSE streams, DELETE), each with the session's headers and a time limit.

use super::answer::Answer;
use super::body::{content_type, error_excerpt};
use super::{Shared, LAST_EVENT_ID, RECONNECT};
use http::header::HeaderName;

/// The session and version headers as header names, made once: inserting by `&str` parses
/// the name on every request.
pub(super) const SESSION_ID: HeaderName =
    HeaderName::from_static(crate::data::protocol::header::SESSION_ID);
pub(super) const PROTOCOL_VERSION: HeaderName =
    HeaderName::from_static(crate::data::protocol::header::PROTOCOL_VERSION);
use crate::engine::http::HttpService;
use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, HOST};
use http::{Method, Request, Response, StatusCode, Uri};
use http_body_util::Full;
use std::task::Poll;
use std::time::Duration;

/// The service and how to reach it, shared by the bridge and the readers that resume
/// dropped streams.
pub(super) struct Client<S> {
    /// Locked only while it is polled ready and called, in one step: the readiness one
    /// caller saw is the one its call uses, and no lock is held across an await.
    pub(super) service: std::sync::Mutex<S>,
    pub(super) endpoint: Uri,
    /// The endpoint's authority, as every request's `Host` (made once).
    pub(super) host: Option<HeaderValue>,
    pub(super) timeout: Duration,
    /// How long to wait before resuming a dropped stream (`None`: the server's `retry:`,
    /// else [`RECONNECT`]).
    pub(super) reconnect: Option<Duration>,
    /// Headers every request carries ([`Bridge::header`](super::Bridge::header)).
    pub(super) headers: http::HeaderMap,
}

impl<S: HttpService> Client<S> {
    /// Opens the GET stream for the messages the server starts on its own (list_changed,
    /// its own requests). A 405 means the server offers none; any other failure is a
    /// problem, except a 4xx to an `early` ask, which is [`Listen::Later`].
    pub(super) async fn open_stream(
        &self,
        session: Option<&HeaderValue>,
        shared: &Shared,
        early: bool,
    ) -> Listen<S::ResBody> {
        let what = "GET (the stream for the server's own messages)";
        match self.get(session, None, what, shared).await {
            Ok(response) => Listen::Open(response),
            Err(Some(response)) if response.status() == StatusCode::METHOD_NOT_ALLOWED => {
                Listen::Settled
            }
            Err(Some(response)) if early && response.status().is_client_error() => Listen::Later,
            Err(Some(response)) => {
                let status = response.status();
                let excerpt = error_excerpt(response.into_body()).await;
                shared.problem(format!(
                    "{what}: answered HTTP {status} instead of 200 or 405{excerpt}"
                ));
                Listen::Settled
            }
            Err(None) => Listen::Settled,
        }
    }

    /// A GET for an SSE stream (resuming one when `last_event_id` is given): the response
    /// when it is 200 with `text/event-stream`; `Err(Some(_))` with any other status;
    /// `Err(None)` when the problem is already noted (the service failed, no answer in
    /// time, 200 without SSE).
    async fn get(
        &self,
        session: Option<&HeaderValue>,
        last_event_id: Option<HeaderValue>,
        what: &str,
        shared: &Shared,
    ) -> Result<Response<S::ResBody>, Option<Response<S::ResBody>>> {
        let mut request = self.request(Method::GET, session, shared);
        let headers = request.headers_mut();
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(last_event_id) = last_event_id {
            headers.insert(LAST_EVENT_ID, last_event_id);
        }
        let response = match self.call(request).await {
            Ok(Ok(response)) => response,
            Ok(Err(error)) => {
                shared.problem(format!("{what}: the service failed: {error}"));
                return Err(None);
            }
            Err(elapsed) => {
                shared.problem(format!("{what}: {elapsed}"));
                return Err(None);
            }
        };
        if response.status() != StatusCode::OK {
            return Err(Some(response));
        }
        if content_type(&response).as_deref() != Some("text/event-stream") {
            shared.problem(format!(
                "{what}: answered 200 without Content-Type text/event-stream"
            ));
            return Err(None);
        }
        Ok(response)
    }

    /// Resumes the stream of `answer` after event `last_event_id` (a GET with
    /// `Last-Event-ID`): the new stream, or `None` with the problem noted.
    pub(super) async fn resume(
        &self,
        answer: &Answer,
        last_event_id: &str,
        line: usize,
        shared: &Shared,
    ) -> Option<Response<S::ResBody>> {
        let what = format!(
            "{}: resuming after event `{last_event_id}` (http_resume, fixture line {line})",
            answer.what
        );
        let Ok(header) = HeaderValue::from_str(last_event_id) else {
            shared.problem(format!("{what}: the event id cannot be sent as a header"));
            return None;
        };
        match self
            .get(answer.session.as_ref(), Some(header), &what, shared)
            .await
        {
            Ok(response) => Some(response),
            Err(Some(response)) if response.status().is_client_error() => {
                shared.problem(format!(
                    "{}: the server keeps no event store: the GET with Last-Event-ID \
                     `{last_event_id}` was answered HTTP {}, so the stream cannot be resumed \
                     (http_resume, fixture line {line})",
                    answer.what,
                    response.status()
                ));
                None
            }
            Err(Some(response)) => {
                let status = response.status();
                let excerpt = error_excerpt(response.into_body()).await;
                shared.problem(format!(
                    "{what}: answered HTTP {status} instead of 200{excerpt}"
                ));
                None
            }
            Err(None) => None,
        }
    }

    /// Waits before resuming a dropped stream, as a client does: the reconnection time
    /// the server asked for (`retry`, an SSE `retry:` field, in ms) unless the bridge names
    /// its own, else [`RECONNECT`]; which gives the server the time to notice the
    /// disconnect (bounded by the bridge's time limit).
    pub(super) async fn wait_to_resume(&self, retry: Option<u64>) {
        let asked = retry.map(Duration::from_millis);
        let wait = self.reconnect.or(asked).unwrap_or(RECONNECT);
        if !wait.is_zero() {
            tokio::time::sleep(wait.min(self.timeout)).await;
        }
    }

    /// A request to the endpoint with `Host`, the session and the protocol version (once
    /// negotiated) set.
    pub(super) fn request(
        &self,
        method: Method,
        session: Option<&HeaderValue>,
        shared: &Shared,
    ) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = method;
        *request.uri_mut() = self.endpoint.clone();
        let headers = request.headers_mut();
        for (name, value) in &self.headers {
            headers.append(name, value.clone());
        }
        if let Some(host) = &self.host {
            headers.insert(HOST, host.clone());
        }
        if let Some(session) = session {
            headers.insert(SESSION_ID, session.clone());
        }
        let version = shared
            .protocol_version
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(version) = version {
            headers.insert(PROTOCOL_VERSION, version);
        }
        request
    }

    /// Sends `request`, giving up after the time limit (the outer error).
    pub(super) async fn call(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Result<Result<Response<S::ResBody>, S::Error>, String> {
        let timeout = self.timeout;
        let call = async {
            let mut request = Some(request);
            let answer = std::future::poll_fn(|cx| {
                let mut service = self.service.lock().unwrap_or_else(|e| e.into_inner());
                match service.poll_ready(cx) {
                    Poll::Ready(Ok(())) => {
                        let request = request.take().expect("called once");
                        Poll::Ready(Ok(service.call(request)))
                    }
                    Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
                    Poll::Pending => Poll::Pending,
                }
            })
            .await?;
            answer.await
        };
        tokio::time::timeout(timeout, call).await.map_err(|_| {
            format!(
                "no response within {} ms; the request is given up",
                timeout.as_millis()
            )
        })
    }

    /// Ends the session: 200, 202 or 204, or 405 from a server that lets no client end it.
    pub(super) async fn delete(&self, session: &HeaderValue, shared: &Shared) {
        let request = self.request(Method::DELETE, Some(session), shared);
        match self.call(request).await {
            Ok(Ok(response)) => {
                let status = response.status();
                if !(status.is_success() || status == StatusCode::METHOD_NOT_ALLOWED) {
                    let excerpt = error_excerpt(response.into_body()).await;
                    shared.problem(format!(
                        "DELETE of the session answered HTTP {status}{excerpt}"
                    ));
                }
            }
            Ok(Err(error)) => shared.problem(format!(
                "DELETE of the session: the service failed: {error}"
            )),
            Err(elapsed) => shared.problem(format!("DELETE of the session: {elapsed}")),
        }
    }
}

/// How an ask for the GET stream went.
pub(super) enum Listen<B> {
    /// The stream is open.
    Open(Response<B>),
    /// Refused before notifications/initialized: ask again after it.
    Later,
    /// No stream, and no use asking again (none offered, or a problem noted).
    Settled,
}
