//! A [`Plan`] made real: its pairings become games (through the games
//! service's fixtures, clocks and notices included) and the whole becomes
//! one [`TournamentStep`], guarded by the revision the plan was decided
//! on. [`after_game`] is what a tournament game's end carries into its
//! transaction.

use crate::clock::TimeControl;
use crate::domain::Seat;
use crate::games::{Ending, Fixture, Games, PlayerNotice};
use crate::store::{GameRecord, NewPairing, Store, TournamentRecord, TournamentStatus, TournamentStep};

use super::error::TournamentResult;
use super::plan::{self, Plan};
use super::standings::Score;

/// What the end of `game` (of tournament `id`) with `ending` does to the
/// tournament as stored now: a step to write with the game's end, or none
/// when the tournament is not running.
pub async fn after_game(
    store: &dyn Store,
    games: &Games,
    id: i64,
    game: &GameRecord,
    ending: &Ending,
    now: i64,
) -> TournamentResult<Option<TournamentStep>> {
    let Some(record) = store.tournament(id).await? else {
        return Ok(None);
    };
    if record.row.status != TournamentStatus::Active {
        return Ok(None);
    }
    let winners = ending.winners();
    let score = match winners.as_slice() {
        [] => Some(Score::Draw),
        [seat] if *seat == Seat::FIRST => Some(Score::FirstWins),
        [_] => Some(Score::SecondWins),
        _ => None,
    };
    let plan = plan::after_game(&record, game.row.id, score);
    Ok(Some(step(games, &record, plan, now).await?))
}

/// `plan` of `record`, its games made, as the store writes it.
pub async fn step(games: &Games, record: &TournamentRecord, plan: Plan, now: i64) -> TournamentResult<TournamentStep> {
    let row = &record.row;
    let control = TimeControl::from_stored(row.settings.time_control.as_ref());
    let mut pairings = Vec::with_capacity(plan.pairings.len());
    for planned in &plan.pairings {
        let game = match planned.pair.second {
            Some(second) => {
                let fixture = Fixture {
                    game: row.settings.game.clone(),
                    variant: row.settings.variant.clone(),
                    public: row.settings.public,
                    rated: row.settings.rated,
                    time_control: control,
                    by: (row.organiser_id, row.organiser.clone()),
                    seats: [
                        (planned.pair.first, record.name_of(planned.pair.first)),
                        (second, record.name_of(second)),
                    ],
                    notice: PlayerNotice::TournamentRound {
                        tournament: row.id,
                        name: row.settings.name.clone(),
                        round: planned.round,
                    },
                };
                Some(games.fixture_game(&fixture, now).await?)
            }
            None => None,
        };
        pairings.push(NewPairing {
            round: planned.round,
            grp: planned.grp,
            first_id: planned.pair.first,
            second_id: planned.pair.second,
            game,
        });
    }
    Ok(TournamentStep {
        tournament_id: row.id,
        expected_rev: row.rev,
        status: plan.status,
        round: plan.round,
        pairings,
        groups: plan.groups,
        events: plan.notices.iter().map(|(player, notice)| notice.to(*player)).collect(),
        now,
    })
}
