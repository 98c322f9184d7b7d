//! The guard every request passes just outside its handler: a body
//! announced larger than the limit is refused before a byte of it is read,
//! the handler gets `request_timeout` to answer, and the request is counted
//! in the metrics with its matched route, status and time.
//!
//! One hand-written tower service instead of three `middleware::from_fn`
//! layers: each of those boxed its inner service and every request's future
//! (issue 26's profile); this one's future is a plain struct around
//! [`tokio::time::Timeout`], so a request is neither boxed nor copied here.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::http::{header, HeaderValue, Method};
use axum::response::{IntoResponse, Response};
use pin_project_lite::pin_project;
use tower::{Layer, Service};

use super::Error;
use crate::metrics::Metrics;

/// The [`Layer`] of [`Guarded`] services.
#[derive(Clone)]
pub struct Guard {
    /// The largest body a request may announce, in bytes.
    pub body_limit: usize,
    /// How long a handler may take to answer.
    pub timeout: Duration,
    pub metrics: Arc<Metrics>,
}

impl<S> Layer<S> for Guard {
    type Service = Guarded<S>;

    fn layer(&self, inner: S) -> Guarded<S> {
        Guarded {
            inner,
            guard: self.clone(),
        }
    }
}

/// A route's service behind the [`Guard`].
#[derive(Clone)]
pub struct Guarded<S> {
    inner: S,
    guard: Guard,
}

impl<S> Service<Request> for Guarded<S>
where
    S: Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // Clones that allocate nothing: a standard method is a tag, a
        // matched path a shared string.
        let counted = Counted {
            metrics: Arc::clone(&self.guard.metrics),
            method: request.method().clone(),
            route: request.extensions().get::<MatchedPath>().cloned(),
            started: Instant::now(),
        };
        let state = if announced_length(&request).is_some_and(|length| length > self.guard.body_limit as u64) {
            State::Refused {
                response: Some(too_large(self.guard.body_limit)),
            }
        } else {
            State::Running {
                handler: tokio::time::timeout(self.guard.timeout, self.inner.call(request)),
            }
        };
        Answer { state, counted }
    }
}

fn announced_length(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// Refused at once (else the client would hold the connection until the
/// request timed out); the connection closes, the body unread.
fn too_large(limit: usize) -> Response {
    let mut response =
        Error::PayloadTooLarge(format!("the request body is too large: at most {limit} bytes")).into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// What the metrics are told when the answer is ready.
struct Counted {
    metrics: Arc<Metrics>,
    method: Method,
    route: Option<MatchedPath>,
    started: Instant,
}

pin_project! {
    /// The future of a [`Guarded`] request.
    pub struct Answer<F> {
        #[pin]
        state: State<F>,
        counted: Counted,
    }
}

pin_project! {
    #[project = StateProjection]
    enum State<F> {
        Refused { response: Option<Response> },
        Running { #[pin] handler: tokio::time::Timeout<F> },
    }
}

impl<F, E> Future for Answer<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.state.project() {
            StateProjection::Refused { response } => response.take().expect("an answer polled after it was ready"),
            StateProjection::Running { handler } => match handler.poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(answer)) => answer?,
                Poll::Ready(Err(_elapsed)) => Error::Timeout.into_response(),
            },
        };
        let counted = &*this.counted;
        let route = counted.route.as_ref().map_or("unmatched", MatchedPath::as_str);
        counted.metrics.count_request(
            counted.method.as_str(),
            route,
            response.status().as_u16(),
            counted.started.elapsed(),
        );
        Poll::Ready(Ok(response))
    }
}
