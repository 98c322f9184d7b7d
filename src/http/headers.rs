//! The security headers every answer carries, the web client's pages and
//! the API's JSON alike, unless the handler set its own.
//!
//! One hand-written layer for the four of them: as four
//! `SetResponseHeaderLayer`s each was a service and a future of its own
//! around the rest of the stack, cloned, polled and dropped at every
//! request (issue 26's profile); this one's future is a plain struct
//! around the inner one and sets the four in one pass.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::http::header::{
    HeaderName, CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderValue, Response};
use pin_project_lite::pin_project;
use tower::{Layer, Service};

/// What the web client may load and do: its own scripts only (no inline
/// script, no eval), inline styles (it sets colour swatches), its own
/// origin for API calls and the WebSocket; no framing (clickjacking), no
/// referrer (links carry game ids), no content-type sniffing. The API's
/// JSON answers carry them too, harmlessly.
const SECURITY_HEADERS: [(HeaderName, &str); 4] = [
    (X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (REFERRER_POLICY, "no-referrer"),
    (X_FRAME_OPTIONS, "DENY"),
    (CONTENT_SECURITY_POLICY, POLICY),
];

/// The Content-Security-Policy of [`SECURITY_HEADERS`].
const POLICY: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
    base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The [`Layer`] of [`Secured`] services.
#[derive(Clone, Copy, Debug, Default)]
pub struct SecurityHeaders;

impl<S> Layer<S> for SecurityHeaders {
    type Service = Secured<S>;

    fn layer(&self, inner: S) -> Secured<S> {
        Secured { inner }
    }
}

/// A service whose answers carry the security headers.
#[derive(Clone)]
pub struct Secured<S> {
    inner: S,
}

impl<S, Request, Body> Service<Request> for Secured<S>
where
    S: Service<Request, Response = Response<Body>>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Headed<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        Headed {
            answer: self.inner.call(request),
        }
    }
}

pin_project! {
    /// The future of a [`Secured`] request.
    pub struct Headed<F> {
        #[pin]
        answer: F,
    }
}

impl<F, Body, E> Future for Headed<F>
where
    F: Future<Output = Result<Response<Body>, E>>,
{
    type Output = Result<Response<Body>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut response = match self.project().answer.poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(answer) => answer?,
        };
        let headers = response.headers_mut();
        for (name, value) in SECURITY_HEADERS {
            headers.entry(name).or_insert(HeaderValue::from_static(value));
        }
        Poll::Ready(Ok(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::response::Response;
    use tower::ServiceExt;

    async fn answer(make: fn() -> Response) -> Response {
        let handler = tower::service_fn(move |()| async move { Ok::<_, std::convert::Infallible>(make()) });
        SecurityHeaders.layer(handler).oneshot(()).await.expect("answered")
    }

    fn with_own_policy() -> Response {
        let mut response = Response::new(Body::empty());
        response
            .headers_mut()
            .insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static("default-src 'none'"));
        response
    }

    /// Every answer gets the four; a header the handler set stays as it
    /// set it, once.
    #[tokio::test]
    async fn every_answer_carries_them_unless_the_handler_set_its_own() {
        let plain = answer(|| Response::new(Body::empty())).await;
        for (name, value) in SECURITY_HEADERS {
            assert_eq!(
                plain.headers().get_all(&name).iter().collect::<Vec<_>>(),
                [value],
                "{name}"
            );
        }
        let own = answer(with_own_policy).await;
        assert_eq!(
            own.headers()
                .get_all(CONTENT_SECURITY_POLICY)
                .iter()
                .collect::<Vec<_>>(),
            ["default-src 'none'"]
        );
        assert_eq!(own.headers()[X_FRAME_OPTIONS], "DENY");
    }
}
