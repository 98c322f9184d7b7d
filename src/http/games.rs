//! Games: the lobby, the state, moves, offers, boards and records.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{Error, Result};
use super::players::{event_list, EventList};
use super::prefer::{shaped_answer, LegalQuery, PreferHeader, ReturnMinimal, Shaped};
use super::{params, AppState, Auth, Json, MaybeAuth, Path, Query};
use crate::domain::{GameStatus, InviteCode};
use crate::games::{Lobby, MoveCommand, NewGameCommand};
use crate::views::{board, record, AnswerShape, GameReply, GameState, GameSummary, MoveRecord, MoveReply};

pub fn router() -> Router<AppState> {
    Router::new()
        .route(api_path!("/games"), post(create).get(list))
        .route(api_path!("/games/{id}"), get(show))
        .route(api_path!("/games/{id}/join"), post(join))
        .route(api_path!("/games/{id}/decline"), post(decline))
        .route(api_path!("/games/{id}/moves"), post(play).get(history))
        .route(api_path!("/games/{id}/resign"), post(resign))
        .route(api_path!("/games/{id}/draw/{answer}"), post(draw))
        .route(api_path!("/games/{id}/takeback/{answer}"), post(takeback))
        .route(api_path!("/games/{id}/abort"), post(abort))
        .route(api_path!("/games/{id}/rematch"), post(rematch))
        .route(api_path!("/games/{id}/board.svg"), get(board_svg))
        .route(api_path!("/games/{id}/board.txt"), get(board_txt))
        .route(api_path!("/games/{id}/record"), get(game_record))
        .route(api_path!("/games/{id}/events"), get(events))
}

/// `state` with `status`, whole or lean as asked (see [`GameReply`]).
fn game_answer(status: StatusCode, state: GameState, shape: AnswerShape) -> Response {
    let reply = GameReply::shaped(state, shape);
    shaped_answer(status, &reply, reply.is_lean())
}

/// Creates a game; the creator sits at `seat`, named opponents are invited,
/// other seats are open to anyone. It starts when every seat is filled.
/// With `Prefer: return=minimal` the answer is the lean one (the game's id,
/// status, ply, player to move, the asker's seat and the event number; the
/// legal moves with `?legal=true`), as for every action on a game below.
#[utoipa::path(post, path = "/api/v1/games", tag = "games", security(("bearer" = [])), params(PreferHeader, LegalQuery),
    request_body = NewGameCommand,
    responses((status = 201, body = GameReply), (status = 400), (status = 401), (status = 422)))]
async fn create(
    State(state): State<AppState>,
    Auth(player): Auth,
    Shaped(shape): Shaped,
    Json(body): Json<NewGameCommand>,
) -> Result<Response> {
    if body.opponents.len() > 16 {
        return Err(Error::unprocessable("too_many_opponents", "at most 16 opponents"));
    }
    let created = state.games.create(&player, body).await?;
    Ok(game_answer(StatusCode::CREATED, created, shape))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// open, active, finished or aborted.
    #[param(value_type = Option<GameStatus>)]
    status: Option<GameStatus>,
    /// A catalogue game slug.
    #[param(schema_with = params::game_slug)]
    #[serde(default, deserialize_with = "params::known_game")]
    game: Option<String>,
    /// Games where this player sits or is invited.
    #[param(schema_with = params::player_name)]
    #[serde(default, deserialize_with = "params::valid_name")]
    player: Option<String>,
    /// `me`: active games waiting for the caller's move (needs a token).
    #[param(value_type = Option<Turn>)]
    turn: Option<Turn>,
    /// The `next_cursor` of the previous page.
    cursor: Option<i64>,
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    #[serde(default, deserialize_with = "params::in_range::<_, 1, 100>")]
    limit: Option<i64>,
}

/// Whose turn `GET /games` asks about: only the caller's.
#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    Me,
}

#[derive(Serialize, ToSchema)]
pub struct GameList {
    games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; `null` on the last.
    next_cursor: Option<i64>,
}

/// Lists the games the caller may see, newest first.
#[utoipa::path(get, path = "/api/v1/games", tag = "games", security((), ("bearer" = [])), params(ListQuery),
    responses((status = 200, body = GameList), (status = 400), (status = 401)))]
async fn list(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Query(query): Query<ListQuery>,
) -> Result<Json<GameList>> {
    let status = query.status;
    let turn_of = match query.turn {
        None => None,
        Some(Turn::Me) => Some(
            viewer
                .as_ref()
                .ok_or_else(|| Error::Unauthorized("turn=me needs a token".to_owned()))?
                .id,
        ),
    };
    let page = state
        .games
        .list(
            viewer.as_ref(),
            Lobby {
                status,
                game: query.game,
                player: query.player,
                turn_of,
                cursor: query.cursor,
                limit: query.limit,
            },
        )
        .await?;
    Ok(Json(GameList {
        games: page.games,
        next_cursor: page.next_cursor,
    }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PlyQuery {
    /// The game as it was after this many moves.
    #[param(minimum = 0)]
    ply: Option<i64>,
    /// A private game's invitation code: shows the game to whoever holds it.
    #[param(value_type = Option<String>, pattern = "^[0-9a-f]{32}$")]
    code: Option<InviteCode>,
}

/// The game: seats, status, whose turn, legal moves, the position, offers.
/// Private games are found only by their players, and by whoever holds
/// their invitation code (`?code=`).
#[utoipa::path(get, path = "/api/v1/games/{id}", tag = "games", security((), ("bearer" = [])), params(("id" = i64, Path), PlyQuery),
    responses((status = 200, body = GameState), (status = 400), (status = 401), (status = 404), (status = 422)))]
async fn show(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Path(id): Path<i64>,
    Query(query): Query<PlyQuery>,
) -> Result<Json<GameState>> {
    let code = query.code.as_ref();
    Ok(Json(
        state
            .games
            .state_with_code(viewer.as_ref(), id, query.ply, code)
            .await?,
    ))
}

#[derive(Deserialize, Default, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    /// A particular open seat; the invited or first open seat otherwise.
    #[schema(maximum = 7)]
    seat: Option<u8>,
    /// A private game's invitation code (or `?code=`): needed by whoever
    /// was not invited.
    #[schema(value_type = Option<String>, pattern = "^[0-9a-f]{32}$")]
    code: Option<InviteCode>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct JoinQuery {
    /// A private game's invitation code, as in its invitation link.
    #[param(value_type = Option<String>, pattern = "^[0-9a-f]{32}$")]
    code: Option<InviteCode>,
    /// As for every lean answer ([`LegalQuery`]).
    legal: Option<bool>,
}

/// Takes an open seat, or accepts an invitation. A private game's open
/// seat needs its invitation code (in the body or the query); without it
/// the game is not found, as for a missing id.
#[utoipa::path(post, path = "/api/v1/games/{id}/join", tag = "games", security(("bearer" = [])),
    params(("id" = i64, Path), PreferHeader, JoinQuery),
    request_body(content = Option<JoinRequest>, description = "optional: no body, or `null`, takes the invited or first open seat"),
    responses((status = 200, body = GameReply), (status = 400), (status = 401), (status = 403), (status = 404),
        (status = 409), (status = 429)))]
async fn join(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path(id): Path<i64>,
    prefer: ReturnMinimal,
    Query(query): Query<JoinQuery>,
    body: std::result::Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response> {
    let body = body.map_err(|r| {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::PayloadTooLarge("the request body is too large".to_owned())
        } else {
            Error::BadRequest(r.body_text())
        }
    })?;
    // The body is optional: none (or `null`, as the document allows) means
    // "any seat".
    let request: JoinRequest = if body.iter().all(u8::is_ascii_whitespace) {
        JoinRequest::default()
    } else {
        super::error::from_json_body::<Option<JoinRequest>>(&body)?.unwrap_or_default()
    };
    let code = request.code.or(query.code);
    let joined = state.games.join(&player, id, request.seat, code.as_ref()).await?;
    let shape = prefer.shape(&LegalQuery { legal: query.legal });
    Ok(game_answer(StatusCode::OK, joined, shape))
}

/// Refuses an invitation: the game is cancelled.
#[utoipa::path(post, path = "/api/v1/games/{id}/decline", tag = "games", security(("bearer" = [])),
    params(("id" = i64, Path), PreferHeader, LegalQuery),
    responses((status = 200, body = GameReply), (status = 401), (status = 403), (status = 404), (status = 409)))]
async fn decline(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path(id): Path<i64>,
    Shaped(shape): Shaped,
) -> Result<Response> {
    Ok(game_answer(
        StatusCode::OK,
        state.games.decline(&player, id).await?,
        shape,
    ))
}

/// Plays a move. `ply` is the number of moves the client has seen. 201 once
/// committed; 200 for a retry of a move already stored (nothing applied
/// twice). With `Prefer: return=minimal` the answer is the lean one (the
/// move, the game's status, ply, player to move and event number; the
/// legal moves with `?legal=true`), marked `Preference-Applied:
/// return=minimal`.
#[utoipa::path(post, path = "/api/v1/games/{id}/moves", tag = "games", security(("bearer" = [])),
    params(("id" = i64, Path), PreferHeader, LegalQuery),
    request_body = MoveCommand,
    responses(
        (status = 201, body = MoveReply, description = "the move is committed: the full answer, or the lean one when asked for"),
        (status = 200, body = MoveReply, description = "a retry of a stored move"),
        (status = 400, description = "malformed body"),
        (status = 401),
        (status = 403, description = "not a player of this game, or not your turn"),
        (status = 404),
        (status = 409, description = "stale ply (the body carries the current state) or game not active"),
        (status = 422, description = "illegal or unparseable move, with the rules' reason")))]
async fn play(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path(id): Path<i64>,
    Shaped(shape): Shaped,
    Json(command): Json<MoveCommand>,
) -> Result<Response> {
    let answer = state.games.play_as(&player, id, command, shape).await?;
    let status = if answer.created() {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(shaped_answer(status, &answer, answer.is_lean()))
}

#[derive(Serialize, ToSchema)]
pub struct History {
    moves: Vec<MoveRecord>,
}

/// The moves: ply, seat, player, move, what it did, time, message.
#[utoipa::path(get, path = "/api/v1/games/{id}/moves", tag = "games", security((), ("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, body = History), (status = 404)))]
async fn history(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Path(id): Path<i64>,
) -> Result<Json<History>> {
    let (record, moves) = state.games.history(viewer.as_ref(), id).await?;
    Ok(Json(History {
        moves: moves.iter().map(|m| MoveRecord::of(&record, m)).collect(),
    }))
}

/// Resigns: every other seat wins.
#[utoipa::path(post, path = "/api/v1/games/{id}/resign", tag = "games", security(("bearer" = [])),
    params(("id" = i64, Path), PreferHeader, LegalQuery),
    responses((status = 200, body = GameReply), (status = 401), (status = 403), (status = 404), (status = 409)))]
async fn resign(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path(id): Path<i64>,
    Shaped(shape): Shaped,
) -> Result<Response> {
    Ok(game_answer(
        StatusCode::OK,
        state.games.resign(&player, id).await?,
        shape,
    ))
}

/// The answer to an offer, as the path spells it.
#[derive(Clone, Copy, PartialEq, Eq, ToSchema)]
#[schema(rename_all = "snake_case")]
pub enum Answer {
    Yes,
    No,
}

impl std::str::FromStr for Answer {
    type Err = Error;

    fn from_str(answer: &str) -> Result<Answer> {
        match answer {
            "yes" => Ok(Answer::Yes),
            "no" => Ok(Answer::No),
            _ => Err(Error::NotFound("the answer is yes or no".to_owned())),
        }
    }
}

fn answer(answer: &str) -> Result<bool> {
    Ok(answer.parse::<Answer>()? == Answer::Yes)
}

/// `yes` offers a draw or accepts the offer; `no` declines it.
#[utoipa::path(post, path = "/api/v1/games/{id}/draw/{answer}", tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path), ("answer" = Answer, Path, description = "yes or no"), PreferHeader, LegalQuery),
    responses((status = 200, body = GameReply), (status = 401), (status = 403), (status = 404), (status = 409)))]
async fn draw(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path((id, yes)): Path<(i64, String)>,
    Shaped(shape): Shaped,
) -> Result<Response> {
    Ok(game_answer(
        StatusCode::OK,
        state.games.draw(&player, id, answer(&yes)?).await?,
        shape,
    ))
}

/// `yes` asks to take back the last move or agrees to it; `no` refuses.
#[utoipa::path(post, path = "/api/v1/games/{id}/takeback/{answer}", tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path), ("answer" = Answer, Path, description = "yes or no"), PreferHeader, LegalQuery),
    responses((status = 200, body = GameReply), (status = 401), (status = 403), (status = 404), (status = 409)))]
async fn takeback(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path((id, yes)): Path<(i64, String)>,
    Shaped(shape): Shaped,
) -> Result<Response> {
    Ok(game_answer(
        StatusCode::OK,
        state.games.takeback(&player, id, answer(&yes)?).await?,
        shape,
    ))
}

/// Aborts a game before every player has moved once.
#[utoipa::path(post, path = "/api/v1/games/{id}/abort", tag = "games", security(("bearer" = [])),
    params(("id" = i64, Path), PreferHeader, LegalQuery),
    responses((status = 200, body = GameReply), (status = 401), (status = 403), (status = 404), (status = 409)))]
async fn abort(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path(id): Path<i64>,
    Shaped(shape): Shaped,
) -> Result<Response> {
    Ok(game_answer(
        StatusCode::OK,
        state.games.abort(&player, id).await?,
        shape,
    ))
}

/// Asks for a rematch of a finished game: a new game of the same kind,
/// seats rotated, the other players invited. When the rematch exists
/// already, answers its invitation instead (takes the invited seat).
#[utoipa::path(post, path = "/api/v1/games/{id}/rematch", tag = "games", security(("bearer" = [])),
    params(("id" = i64, Path), PreferHeader, LegalQuery),
    responses((status = 200, body = GameReply, description = "the rematch"), (status = 401), (status = 403),
        (status = 404),
        (status = 409, description = "the game is not finished, or offering it would pass the asker's caps on open games or invitations")))]
async fn rematch(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path(id): Path<i64>,
    Shaped(shape): Shaped,
) -> Result<Response> {
    Ok(game_answer(
        StatusCode::OK,
        state.games.rematch(&player, id).await?,
        shape,
    ))
}

async fn board(
    state: &AppState,
    viewer: Option<&crate::players::Player>,
    id: i64,
    ply: Option<i64>,
    svg: bool,
) -> Result<Response> {
    let snapshot = state.games.snapshot(viewer, id, ply).await?;
    let body = board::render(&snapshot, ply, svg).map_err(Error::internal)?;
    Ok(if svg {
        ([(header::CONTENT_TYPE, "image/svg+xml")], body).into_response()
    } else {
        ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
    })
}

/// The board as SVG, now or after move `ply`; the last move's cells marked.
#[utoipa::path(get, path = "/api/v1/games/{id}/board.svg", tag = "boards", security((), ("bearer" = [])), params(("id" = i64, Path), PlyQuery),
    responses((status = 200, content_type = "image/svg+xml", body = String), (status = 404), (status = 422)))]
async fn board_svg(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Path(id): Path<i64>,
    Query(query): Query<PlyQuery>,
) -> Result<Response> {
    board(&state, viewer.as_ref(), id, query.ply, true).await
}

/// The board as text, in the spirit of pbmserv's mails.
#[utoipa::path(get, path = "/api/v1/games/{id}/board.txt", tag = "boards", security((), ("bearer" = [])), params(("id" = i64, Path), PlyQuery),
    responses((status = 200, content_type = "text/plain", body = String), (status = 404), (status = 422)))]
async fn board_txt(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Path(id): Path<i64>,
    Query(query): Query<PlyQuery>,
) -> Result<Response> {
    board(&state, viewer.as_ref(), id, query.ply, false).await
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RecordQuery {
    /// `json` (default) or `text`.
    #[param(value_type = Option<RecordFormat>)]
    format: Option<RecordFormat>,
}

/// How `GET /games/{id}/record` answers.
#[derive(Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecordFormat {
    Json,
    Text,
}

/// The game's record: headers, players, result, moves; `?format=text` for the
/// transcription with numbered rounds and a column per player.
#[utoipa::path(get, path = "/api/v1/games/{id}/record", tag = "games", security((), ("bearer" = [])), params(("id" = i64, Path), RecordQuery),
    responses((status = 200, description = "the record as JSON, or as text with `?format=text`",
        content((record::GameRecordJson = "application/json"), (String = "text/plain"))), (status = 400), (status = 404)))]
async fn game_record(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Path(id): Path<i64>,
    Query(query): Query<RecordQuery>,
) -> Result<Response> {
    let (game, moves) = state.games.history(viewer.as_ref(), id).await?;
    let json = record::json(&game, &moves).map_err(Error::internal)?;
    match query.format.unwrap_or(RecordFormat::Json) {
        RecordFormat::Json => Ok(Json(json).into_response()),
        RecordFormat::Text => Ok((
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            record::text(&json),
        )
            .into_response()),
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct GameEventsQuery {
    /// Events after this number.
    after: Option<i64>,
    /// At most this many (1 to 500, default 100).
    #[param(minimum = 1, maximum = 500)]
    #[serde(default, deserialize_with = "params::in_range::<_, 1, 500>")]
    limit: Option<i64>,
}

/// The game's event log, in order: what live clients resume from.
#[utoipa::path(get, path = "/api/v1/games/{id}/events", tag = "games", security((), ("bearer" = [])), params(("id" = i64, Path), GameEventsQuery),
    responses((status = 200, body = EventList), (status = 404)))]
async fn events(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Path(id): Path<i64>,
    Query(query): Query<GameEventsQuery>,
) -> Result<Json<EventList>> {
    let limit = query.limit.unwrap_or(100);
    let rows = state
        .games
        .events(viewer.as_ref(), id, query.after.unwrap_or(0), limit)
        .await?;
    Ok(Json(event_list(Some(id), &rows)))
}
