# syntax=docker/dockerfile:1
# Tavoliere server image: build with the Rust toolchain, run on a slim Debian.
# SQLite is compiled in; no TLS library is needed (PostgreSQL is reached in
# plain text on the compose network).

FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
# Cache the registry and the target directory between builds; the binary is
# copied out of the cache mount in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin tavoliere \
    && cp target/release/tavoliere /usr/local/bin/tavoliere

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --create-home --home-dir /data tavoliere
COPY --from=build /usr/local/bin/tavoliere /usr/local/bin/tavoliere
USER tavoliere
WORKDIR /data
# Inside a container the server must listen on every interface. Without
# DATABASE_URL it keeps a SQLite file in /data.
ENV TAVOLIERE_LISTEN=0.0.0.0:8080 \
    DATABASE_URL=sqlite:///data/tavoliere.db
EXPOSE 8080
ENTRYPOINT ["tavoliere"]
CMD ["serve"]
