//! Rows as the shared statements read them, where a row is not already a
//! model: each turns into its model, or into an error when the stored
//! values break the schema's promises.

use serde_json::Value;

use super::{ConditionalRow, ConditionalTrees, SeatRow, StoreError};
use crate::domain::Seat;

/// A seat joined with the names of whoever sits there and whoever it is
/// reserved for.
#[derive(Debug, sqlx::FromRow)]
pub struct SeatRecord {
    pub seat: Seat,
    pub player_id: Option<i64>,
    pub player_name: Option<String>,
    pub invitee_id: Option<i64>,
    pub invitee_name: Option<String>,
    /// Whether each is a bot account.
    pub player_bot: Option<bool>,
    pub invitee_bot: Option<bool>,
    /// The sitting player's rating in the game's variant, if rated there.
    pub rating: Option<f64>,
    pub rd: Option<f64>,
}

/// The columns of a [`SeatRecord`] for the game `$1`, in seat order.
pub const SEATS_OF_GAME: &str = "SELECT s.seat, s.player_id, p.name AS player_name, s.invitee_id, \
     i.name AS invitee_name, p.bot AS player_bot, i.bot AS invitee_bot, r.rating, r.rd FROM seats s \
     JOIN games g ON g.id = s.game_id \
     LEFT JOIN players p ON p.id = s.player_id \
     LEFT JOIN players i ON i.id = s.invitee_id \
     LEFT JOIN ratings r ON r.player_id = s.player_id AND r.game = g.game AND r.variant = g.variant \
     WHERE s.game_id = $1 ORDER BY s.seat";

impl TryFrom<SeatRecord> for SeatRow {
    type Error = StoreError;

    fn try_from(row: SeatRecord) -> Result<SeatRow, StoreError> {
        let player = named(row.player_id, row.player_name)?;
        let bot = if player.is_some() {
            row.player_bot
        } else {
            row.invitee_bot
        };
        Ok(SeatRow {
            seat: row.seat,
            player,
            invitee: named(row.invitee_id, row.invitee_name)?,
            bot: bot.unwrap_or(false),
            rating: row.rating.zip(row.rd),
        })
    }
}

/// A player joined by id: the join finds their name, or the row is broken.
fn named(id: Option<i64>, name: Option<String>) -> Result<Option<(i64, String)>, StoreError> {
    match (id, name) {
        (Some(id), Some(name)) => Ok(Some((id, name))),
        (None, _) => Ok(None),
        (Some(id), None) => Err(StoreError::BadRow(sqlx::Error::Decode(
            format!("a seat names player {id}, who does not exist").into(),
        ))),
    }
}

/// A game's version of its conditional trees, joined with one of them
/// (none: every tree column is `NULL`).
#[derive(Debug, sqlx::FromRow)]
pub struct ConditionalRecord {
    pub rev: i64,
    pub player_id: Option<i64>,
    pub ply: Option<i64>,
    pub lines: Option<Value>,
    pub updated_at: Option<i64>,
}

impl ConditionalRecord {
    /// The trees of the rows of one game (no rows: no such game).
    pub fn gather(rows: Vec<ConditionalRecord>) -> Result<ConditionalTrees, StoreError> {
        let rev = rows.first().map_or(0, |r| r.rev);
        let mut trees = Vec::with_capacity(rows.len());
        for row in rows {
            match (row.player_id, row.ply, row.lines, row.updated_at) {
                (Some(player_id), Some(ply), Some(lines), Some(updated_at)) => trees.push(ConditionalRow {
                    player_id,
                    ply,
                    lines,
                    updated_at,
                }),
                (None, ..) => {}
                _ => {
                    return Err(StoreError::BadRow(sqlx::Error::Decode(
                        "a conditional tree with empty columns".into(),
                    )))
                }
            }
        }
        Ok(ConditionalTrees { rev, trees })
    }
}

#[cfg(test)]
mod tests {
    use sqlx::sqlite::SqlitePoolOptions;

    use super::*;
    use crate::domain::GameStatus;
    use crate::store::{GameRow, MoveEventRow};

    fn seat(player: (Option<i64>, Option<&str>)) -> SeatRecord {
        SeatRecord {
            seat: Seat::FIRST,
            player_id: player.0,
            player_name: player.1.map(str::to_owned),
            invitee_id: None,
            invitee_name: None,
            player_bot: player.0.map(|_| false),
            invitee_bot: None,
            rating: None,
            rd: None,
        }
    }

    #[test]
    fn a_seat_names_whoever_sits_there() {
        let row = SeatRow::try_from(seat((Some(4), Some("ann")))).expect("a seat");
        assert_eq!(row.player, Some((4, "ann".to_owned())));
        assert_eq!(row.invitee, None);
        assert!(SeatRow::try_from(seat((None, None))).expect("open").player.is_none());
        let broken = SeatRow::try_from(seat((Some(4), None))).expect_err("no name");
        assert!(matches!(broken, StoreError::BadRow(_)), "{broken}");
    }

    const GAME: &str = "SELECT 1 AS id, 'gravity' AS game, 'standard' AS variant, ?1 AS status, \
         1 AS public, 0 AS ply, ?2 AS to_move, NULL AS outcome, 0 AS draw_offer, 0 AS takeback_offer, \
         1 AS event_seq, 1 AS created_by, 0 AS created_at, 0 AS updated_at, NULL AS time_control, \
         NULL AS clock, NULL AS deadline, NULL AS reminder_at, 1 AS rated, NULL AS rating_min, \
         NULL AS rating_max, NULL AS rematch_of, NULL AS rematch, 0 AS conditional_rev, NULL AS invite_code, \
         NULL AS tournament_id";

    /// Rows decode into the domain's words; a stored status or seat that
    /// names none is an error of the store, not a panic.
    #[tokio::test]
    async fn stored_statuses_and_seats_decode_or_fail_cleanly() {
        let pool = SqlitePoolOptions::new()
            .connect("sqlite::memory:")
            .await
            .expect("sqlite");
        let row: GameRow = sqlx::query_as(GAME)
            .bind("active")
            .bind(1_i64)
            .fetch_one(&pool)
            .await
            .expect("a game");
        assert_eq!((row.status, row.to_move), (GameStatus::Active, Some(Seat::from(1))));
        for (status, to_move) in [("playing", 0_i64), ("open", 8)] {
            let error = sqlx::query_as::<_, GameRow>(GAME)
                .bind(status)
                .bind(to_move)
                .fetch_one(&pool)
                .await
                .expect_err("not a game");
            assert!(
                matches!(StoreError::from(error), StoreError::BadRow(_)),
                "{status} {to_move}"
            );
        }
        let a_move = |payload: &str| {
            sqlx::query_as::<_, MoveEventRow>("SELECT 5 AS seq, ?1 AS payload, 0 AS created_at")
                .bind(payload.to_owned())
                .fetch_one(&pool)
        };
        let row = a_move(r#"{"ply": 1, "seat": 1, "player": "ann", "move": "a1", "effect": null}"#)
            .await
            .expect("a move event");
        assert_eq!(
            (row.payload.0.seat, row.payload.0.notation.as_str()),
            (Seat::from(1), "a1")
        );
        for not_a_move in [
            r#"{"ply": 1, "seat": -1, "player": "ann", "move": "a1"}"#,
            r#"{"ply": 1, "seat": 0, "player": "ann"}"#,
            "{}",
        ] {
            let error = a_move(not_a_move).await.expect_err("not a move");
            assert!(matches!(StoreError::from(error), StoreError::BadRow(_)), "{not_a_move}");
        }
    }
}
